package golden

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// A File is one file of a txtar archive: "-- name --" and its lines.
type File struct {
	Name string
	Data []byte
}

// An Archive is a txtar archive (the format of golang.org/x/tools/txtar):
// a comment, then files, each introduced by a line "-- name --". One file
// per test case holds its input and its golden output together.
type Archive struct {
	Comment []byte
	Files   []File
}

// ParseArchive reads a txtar archive.
func ParseArchive(data []byte) *Archive {
	a := &Archive{}
	cur := &a.Comment
	for len(data) > 0 {
		line := data
		rest := []byte(nil)
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, rest = data[:i+1], data[i+1:]
		}
		t := strings.TrimRight(string(line), "\r\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			a.Files = append(a.Files, File{Name: strings.TrimSpace(t[3 : len(t)-3])})
			cur = &a.Files[len(a.Files)-1].Data
		} else {
			*cur = append(*cur, line...)
		}
		data = rest
	}
	return a
}

// Format writes the archive back.
func (a *Archive) Format() []byte {
	var b []byte
	b = append(b, a.Comment...)
	for _, f := range a.Files {
		b = append(b, "-- "+f.Name+" --\n"...)
		b = append(b, f.Data...)
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			b = append(b, '\n')
		}
	}
	return b
}

// Get returns the data of the file called name, and whether there is one.
func (a *Archive) Get(name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// CheckFile compares got with the file called name in the archive at
// path; with -update it writes got there instead (adding the file if it is
// missing), keeping the archive's other files.
func CheckFile(t testing.TB, path, name string, got []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := ParseArchive(data)
	if *update {
		found := false
		for i := range a.Files {
			if a.Files[i].Name == name {
				a.Files[i].Data, found = got, true
			}
		}
		if !found {
			a.Files = append(a.Files, File{Name: name, Data: got})
		}
		if err := os.WriteFile(path, a.Format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, ok := a.Get(name)
	if !ok {
		t.Fatalf("%s has no file %q (run the test with -update to add it)", path, name)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %s differs (run with -update if the change is intended)\n got:\n%s\nwant:\n%s", path, name, got, want)
	}
}
