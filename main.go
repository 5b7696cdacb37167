// Command smsdesk is a terminal console and command line for an SMS service's
// operators. main wires the packages together and hands over to ui.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "smsdesk: under construction")
	os.Exit(2)
}
