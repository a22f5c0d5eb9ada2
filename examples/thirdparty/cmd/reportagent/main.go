// Command reportagent runs the example aop-output agent in the working directory.
package main

import (
	"os"

	"example.com/thirdparty/reportagent"
)

func main() { os.Exit(reportagent.Main()) }
