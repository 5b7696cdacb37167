package cli

import (
	"errors"
	"io/fs"
	"os"
)

// openInput opens a file the operator named (what, e.g. "pairs file") for
// reading, with an error that names it once and says what is wrong in
// words: "pairs file p.csv: no such file", "… is a directory, not a CSV
// file" (it read "opening p.csv: open p.csv: no such file or directory",
// and a directory got as far as the CSV reader).
func openInput(what, path string) (*os.File, error) {
	f, err := os.Open(path)
	if err == nil {
		var st fs.FileInfo
		if st, err = f.Stat(); err == nil && st.IsDir() {
			_ = f.Close()
			return nil, usageError("%s %s is a directory, not a CSV file", what, path)
		}
		if err == nil {
			return f, nil
		}
		_ = f.Close()
	}
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, usageError("%s %s: no such file", what, path)
	case errors.As(err, &pe):
		return nil, usageError("%s %s: %v", what, path, pe.Err) // permission denied, …
	}
	return nil, usageError("%s %s: %v", what, path, err)
}
