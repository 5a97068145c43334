/// The plural ending for `count` things: "" for one, "s" for any other number.
func plural(_ count: Int) -> String { count == 1 ? "" : "s" }
