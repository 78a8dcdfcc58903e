// Command chatd runs the chat server and administers its data.
//
//	chatd serve        run the HTTP server (the default command)
//	chatd create-org   create an organization and its owner, print them as JSON
//	chatd create-user  create a user in an organization, print it as JSON
//	chatd import slack import an organization from a Slack export, print a summary as JSON
//
// Every flag can also be set through the environment variable
// CHATD_<FLAG>, the flag's name upper-cased with "-" as "_"; a flag on the
// command line wins. `chatd serve` with no settings keeps its data in SQLite
// under ./chatd-data, listens on 127.0.0.1:9991, and on its first start
// creates an organization and prints its owner's credentials.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	// Time zone names validate the same on every machine, with or
	// without the system's zoneinfo.
	_ "time/tzdata"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "chatd:", err)
		}
		os.Exit(2)
	}
}

const usage = `usage: chatd <command> [flags]

commands:
  serve        run the HTTP server (default)
  create-org   create an organization and its owner; prints JSON
  create-user  create a user in an organization; prints JSON
  import slack import an organization from a Slack export zip; prints JSON

Run "chatd <command> -h" for the flags of a command.
`

// run dispatches a command line; it returns when the command is done or,
// for serve, when ctx is canceled and the server has shut down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, stdout, stderr)
	case "create-org":
		return createOrg(ctx, args, stdout, stderr)
	case "create-user":
		return createUser(ctx, args, stdout, stderr)
	case "import":
		return importCmd(ctx, args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// parseFlags parses args into fs, then fills every flag not given on the
// command line from its CHATD_* environment variable.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s: %w", envName(f.Name), e)
			}
		}
	})
	return err
}

// envName is the environment variable of a flag.
func envName(flagName string) string {
	b := []byte("CHATD_")
	for i := 0; i < len(flagName); i++ {
		c := flagName[i]
		switch {
		case c == '-':
			c = '_'
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}
