package main

import "strconv"

// plural returns n and the noun in the number n asks for: "1 entry",
// "2 entries", "0 arguments".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
