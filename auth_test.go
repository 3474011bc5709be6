package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// bcryptHash hashes a password at the cheapest cost, for users files.
func bcryptHash(t *testing.T, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func writeUsers(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNewAuthenticator_Errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		backend string
		users   *string // nil: no --users
		wantErr string
	}{
		{name: "unknown backend", backend: "kerberos_auth", wantErr: `unknown auth backend "kerberos_auth"`},
		{name: "basic without users", backend: authBasic, wantErr: "auth backend basic_auth needs --users"},
		{name: "password without users", backend: authPassword, wantErr: "auth backend password_auth needs --users"},
		{name: "line without colon", backend: authBasic, users: strPtr("alice:a\nbob\n"), wantErr: "line 2: want user:password"},
		{name: "empty password", backend: authBasic, users: strPtr("alice:\n"), wantErr: "line 1: want user:password"},
		{name: "empty user", backend: authBasic, users: strPtr(":pw\n"), wantErr: "line 1: want user:password"},
		{name: "duplicate user", backend: authBasic, users: strPtr("alice:a\n\nalice:b\n"), wantErr: `line 3: user "alice" is listed twice`},
		{name: "bad bcrypt hash", backend: authBasic, users: strPtr("alice:$2a$10$short\n"), wantErr: "line 1: bad bcrypt hash"},
		{name: "no users", backend: authPassword, users: strPtr("# nobody\n\n"), wantErr: "lists no users"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := ""
			if tc.users != nil {
				file = writeUsers(t, *tc.users)
			}
			_, err := newAuthenticator(tc.backend, file)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("newAuthenticator error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		t.Parallel()
		_, err := newAuthenticator(authBasic, filepath.Join(t.TempDir(), "absent"))
		if err == nil || !strings.Contains(err.Error(), "read users file") {
			t.Fatalf("error = %v, want read users file", err)
		}
	})
}

func TestAuthenticator_Check(t *testing.T) {
	t.Parallel()
	users := "# comment\n\nalice:plain:with:colons\nbob:" + bcryptHash(t, "hashed") + "\n"
	const (
		ok           = 0
		unauthorized = http.StatusUnauthorized
		forbidden    = http.StatusForbidden
		crash        = -1
	)
	tests := []struct {
		backend string
		header  string // "" sends none
		want    int
	}{
		{authDefault, "", ok},
		{authDefault, "Basic garbage", ok},
		{authDenyAll, "", forbidden},
		{authDenyAll, "Basic " + base64Std("alice:plain:with:colons"), forbidden},
		{authBasic, "Basic " + base64Std("alice:plain:with:colons"), ok},
		{authBasic, "Basic " + base64Std("bob:hashed"), ok},
		{authBasic, "BASIC   " + base64Std("bob:hashed") + "  ", ok},
		{authBasic, "Basic " + base64Std("bob:"+"wrong"), unauthorized},
		{authBasic, "Basic " + base64Std("alice:plain"), unauthorized},
		{authBasic, "", unauthorized},
		{authBasic, "Digest x", unauthorized},
		{authPassword, "Basic " + base64Std("bob:hashed"), ok},
		{authPassword, "x " + base64Std("alice:plain:with:colons"), ok},
		{authPassword, "Basic " + base64Std("alice:wrong"), forbidden},
		{authPassword, "Basic " + base64Std("carol:x"), forbidden},
		{authPassword, "", unauthorized},
		{authPassword, "Basic %%%", crash},
		{authPassword, "Basic " + base64Std("alice"), crash},
	}
	for _, tc := range tests {
		t.Run(tc.backend+"/"+tc.header, func(t *testing.T) {
			t.Parallel()
			file := ""
			if tc.backend == authBasic || tc.backend == authPassword {
				file = writeUsers(t, users)
			}
			a, err := newAuthenticator(tc.backend, file)
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(http.MethodGet, "/api/experimental/test", nil)
			if tc.header != "" {
				r.Header.Set("Authorization", tc.header)
			}
			rej := a.check(r)
			switch tc.want {
			case crash:
				if rej.err == nil {
					t.Fatalf("check = %+v, want an error (500)", rej)
				}
			case ok:
				if rej.status != 0 || rej.err != nil {
					t.Fatalf("check = %+v, want accepted", rej)
				}
			default:
				if rej.status != tc.want || rej.err != nil {
					t.Fatalf("check = %+v, want status %d", rej, tc.want)
				}
				wantBody, wantChallenge := "Forbidden", ""
				if tc.want == unauthorized {
					wantBody, wantChallenge = "Unauthorized", "Basic"
				}
				if rej.body != wantBody || rej.wwwAuthenticate != wantChallenge {
					t.Errorf("check = %+v, want body %q and challenge %q", rej, wantBody, wantChallenge)
				}
			}
		})
	}
}
