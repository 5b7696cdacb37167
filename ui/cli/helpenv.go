package cli

import "github.com/spf13/cobra"

// environmentHelp is `smsdesk help environment`: a help topic, not a command.
func environmentHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "Environment variables smsdesk reads",
		Long: `Environment variables smsdesk reads (an empty value counts as unset):

  SMSDESK_API_KEY     the API key; wins over a stored one (login, keyring or
                      credentials file). Never printed; the debug log redacts it.
  SMSDESK_BASE_URL    the service's base URL (https://host/v1 or https://host/api/v1);
                      --base-url wins over it, it wins over the profile's.
  SMSDESK_PROFILE     the profile to use; --profile wins over it, it wins over
                      the active profile.
  SMSDESK_CONFIG_DIR  where config.toml (and credentials.toml) live; default the
                      OS's config directory (XDG_CONFIG_HOME on Linux)/smsdesk.
  SMSDESK_STATE_DIR   where the ledger (smsdesk.db), caches and the debug log
                      live; default the OS's state directory (XDG_STATE_HOME on
                      Linux)/smsdesk.
  SMSDESK_LEDGER      the ledger for this process: a SQLite file, or a
                      postgres:// URL without a password; wins over config.toml's
                      ledger (smsdesk ledger status shows which is in force).
  PGPASSWORD          the password of a PostgreSQL ledger (or ~/.pgpass, or
                      PGPASSFILE), never in its URL.
  NO_COLOR            set and not empty: the console draws no colour at all
                      (no-color.org); focus and selection keep reverse and bold.
  TERM                dumb: the console refuses and points to the commands; the
                      terminal's name also decides bidi = auto.
  TMUX, STY           inside tmux or screen: the console wraps clipboard copies
                      (OSC 52) for them.
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                      the usual proxy settings (smsdesk doctor shows them,
                      without passwords).`,
		Example: "  SMSDESK_API_KEY=sk_test_… smsdesk status\n  SMSDESK_PROFILE=test smsdesk history",
	}
}
