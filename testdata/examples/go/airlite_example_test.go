package example

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var airliteURL string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "airlite")
	if err != nil {
		panic(err)
	}
	ready := filepath.Join(dir, "ready")
	bin := os.Getenv("AIRLITE_BIN")
	if bin == "" {
		bin = "airlite"
	}
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--ready-file", ready, "--snapshot", "off")
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(ready); err == nil {
			airliteURL = strings.TrimSpace(string(b))
			break
		}
		if time.Now().After(deadline) {
			panic("airlite did not start")
		}
	}
	code := m.Run()
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	os.RemoveAll(dir)
	os.Exit(code)
}

// reset puts airlite back to its fixtures between tests.
func reset(t *testing.T) {
	t.Helper()
	resp, err := http.Post(airliteURL+"/_airlite/reset", "", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("reset: %v %v", err, resp)
	}
	resp.Body.Close()
}

func TestTriggerDAG(t *testing.T) {
	reset(t)
	body := strings.NewReader(`{"conf": {"key": "value"}}`)
	resp, err := http.Post(airliteURL+"/api/experimental/dags/example_bash_operator/dag_runs", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("trigger: status %d", resp.StatusCode)
	}
	fmt.Println("triggered example_bash_operator")
}
