//go:build unix

package corpus_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestLoadRefusesAFIFO: a named pipe among the corpus files is refused at
// once rather than read (which would wait for a writer).
func TestLoadRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	s, err := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.json"), model.Format(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := corpus.Load(dir); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "b.json")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	_, err = corpus.Load(dir)
	if err == nil || err.Error() != "corpus: "+pipe+": is a named pipe, not a regular file" {
		t.Errorf("error %v", err)
	}
}
