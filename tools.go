//go:build tools

// Package aopkit pins the libraries every part of the toolkit relies on, so that
// go.mod lists them before each package imports them.
package aopkit

import (
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/sergi/go-diff/diffmatchpatch"
	_ "github.com/urfave/cli/v2"
	_ "github.com/xeipuuv/gojsonschema"
)
