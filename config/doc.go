// Package config is what smsdesk keeps on this machine: the config file with its
// named profiles, the API keys (system keyring, environment, or an opt-in
// plain-text file), and local state such as the groups each profile knows.
//
// Every file is written atomically (temp file, fsync, rename, fsync of the
// directory) with mode 0600 in directories created 0700. A corrupt file yields a
// *FileError naming the file and how to recover, and never costs the rest of
// the state. No API key ever appears in an error, a log line or a String method.
//
// config imports model only.
package config
