package aopconformcmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/requirements"
)

// coverageCommand is `aopconform coverage`: what the registry of requirements
// (conform/requirements) says each spec section requires, and how much of it lint
// rules, agent-side checks and orchestrator-side checks enforce.
func coverageCommand(stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) *cli.Command {
	return &cli.Command{
		Name:      "coverage",
		Usage:     "per spec section, how many requirements lint, agent-side checks and orchestrator-side checks enforce, waive or leave open",
		UsageText: "aopconform coverage [--protocol ID] [--side agent|orchestrator] [--format text|json|md]",
		Flags: []cli.Flag{
			protocolFilterFlag(),
			&cli.StringFlag{Name: flagSide, Usage: "only the requirements binding `SIDE` (agent or orchestrator; message requirements bind both)"},
			formatFlag("text, json or md"),
		},
		OnUsageError: usage,
		Action: func(c *cli.Context) error {
			return coverageCmd(c.String(flagProtocol), c.String(flagSide), c.String(flagFormat), stdout, stderr)
		},
	}
}

func coverageCmd(protocol, side, format string, stdout, stderr io.Writer) error {
	if protocol != "" && !conform.KnownProtocol(protocol) {
		return usageFail(stderr, fmt.Sprintf("unknown protocol %q", protocol))
	}
	switch side {
	case "", requirements.SideAgent, requirements.SideOrchestrator:
	default:
		return usageFail(stderr, fmt.Sprintf("--side %q: want agent or orchestrator", side))
	}
	all, err := requirements.All()
	if err != nil {
		return err
	}
	reqs := requirements.Select(all, requirements.Filter{Protocol: protocol, Side: side})
	switch format {
	case "", "text":
		return requirements.WriteText(stdout, reqs)
	case "json":
		return requirements.WriteJSON(stdout, reqs)
	case "md", "markdown":
		return requirements.WriteMarkdown(stdout, reqs)
	}
	return usageFail(stderr, fmt.Sprintf("--format %q: want text, json or md", format))
}

// protocolFilterFlag is --protocol of the commands that list (list, coverage,
// engine-faults): only this protocol; anyProtocol checks it.
func protocolFilterFlag() cli.Flag {
	return &cli.StringFlag{Name: flagProtocol, Usage: "only this protocol"}
}

// formatFlag is --format (-f) of a command that lists, text by default; formats
// names those it takes ("text or json").
func formatFlag(formats string) cli.Flag {
	return &cli.StringFlag{Name: flagFormat, Aliases: []string{"f"}, Value: "text", Usage: formats}
}

// textOrJSON reports a --format of command cmd other than text or json: exit 2.
func textOrJSON(format, cmd string, stderr io.Writer) error {
	if format == "text" || format == "json" {
		return nil
	}
	return usageFail(stderr, fmt.Sprintf("unknown --format %q for %s: want text or json", format, cmd))
}

// anyProtocol reports a --protocol that names no known protocol ("": all of
// them): exit 2.
func anyProtocol(protocol string, stderr io.Writer) error {
	if protocol == "" || conform.KnownProtocol(protocol) {
		return nil
	}
	return usageFail(stderr, fmt.Sprintf("unknown protocol %q (one of %s)", protocol, strings.Join(conform.Protocols, ", ")))
}

// usageFail reports a command-line mistake: exit 2.
func usageFail(stderr io.Writer, msg string) error {
	fmt.Fprintln(stderr, "aopconform:", msg)
	return exitCode(exitHarness)
}
