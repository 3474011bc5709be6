package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Identifying a caller says who, or why not, and nothing of the answer.
func TestAuthenticator_Identify(t *testing.T) {
	t.Parallel()
	users := "alice:plain\n"
	tests := []struct {
		backend, header string
		want            caller
		wantErr         error // errNoCredentials, errBadCredentials, or an *unreadableCredentials (any)
	}{
		{authDefault, "Basic " + base64Std("alice:plain"), caller{via: viaAnonymous}, nil},
		{authDenyAll, "", caller{via: viaAnonymous}, nil},
		{authBasic, "Basic " + base64Std("alice:plain"), caller{user: "alice", via: viaBasic}, nil},
		{authBasic, "", caller{}, errNoCredentials},
		{authBasic, "Bearer abc", caller{}, errNoCredentials},
		{authBasic, "Basic " + base64Std("alice:wrong"), caller{}, errBadCredentials},
		{authBasic, "Basic %%%", caller{}, errBadCredentials},
		{authPassword, "x " + base64Std("alice:plain"), caller{user: "alice", via: viaPassword}, nil},
		{authPassword, "", caller{}, errNoCredentials},
		{authPassword, "Basic " + base64Std("alice:wrong"), caller{}, errBadCredentials},
		{authPassword, "Basic " + base64Std("alice"), caller{}, &unreadableCredentials{}},
	}
	for _, tc := range tests {
		t.Run(tc.backend+"/"+tc.header, func(t *testing.T) {
			t.Parallel()
			a, r := authRequest(t, tc.backend, users, "/api/v1/dags", tc.header)
			got, err := a.identify(r)
			var unreadable *unreadableCredentials
			switch {
			case tc.wantErr == nil && err != nil, tc.wantErr != nil && err == nil:
				t.Fatalf("identify = %+v, %v; want error %v", got, err, tc.wantErr)
			case errors.As(tc.wantErr, &unreadable):
				if !errors.As(err, &unreadable) {
					t.Fatalf("identify error %v, want an unreadable header", err)
				}
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("identify error %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("identify = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The stable API's action log names basic_auth's user only.
func TestCaller_LoggedIn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    caller
		want string
	}{
		{caller{user: "alice", via: viaBasic}, "alice"},
		{caller{user: "alice", via: viaPassword}, ""},
		{caller{via: viaAnonymous}, ""},
	} {
		if got := tc.c.loggedIn(); got != tc.want {
			t.Errorf("%+v.loggedIn() = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// tokenIdentifier stands in for Airflow 3's bearer tokens (issue #21): it
// reads "Bearer <user>" and nothing else.
type tokenIdentifier struct{}

func (tokenIdentifier) identify(r *http.Request) (caller, error) {
	user, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return caller{}, errNoCredentials
	}
	if user == "" {
		return caller{}, errBadCredentials
	}
	return caller{user: user, via: "bearer"}, nil
}

// A way to identify callers is one more identifier: the first one that
// reads the request's credentials decides, and the backend's refusal
// stays its own.
func TestAuthenticator_OneMoreIdentifier(t *testing.T) {
	t.Parallel()
	a, err := newAuthenticator(authBasic, writeUsers(t, "alice:plain\n"))
	if err != nil {
		t.Fatal(err)
	}
	a.identifiers = append([]identifier{tokenIdentifier{}}, a.identifiers...)
	tests := []struct {
		header     string
		wantStatus int
		wantUser   string
	}{
		{"Bearer bob", 0, "bob"},
		{"Basic " + base64Std("alice:plain"), 0, "alice"},
		{"Bearer ", http.StatusUnauthorized, ""},
		{"", http.StatusUnauthorized, ""},
	}
	for _, tc := range tests {
		t.Run(tc.header, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/api/v1/dags", nil)
			if tc.header != "" {
				r.Header.Set("Authorization", tc.header)
			}
			rej := a.check(r)
			if rej.status != tc.wantStatus || rej.caller.user != tc.wantUser {
				t.Errorf("check = %+v, want status %d for user %q", rej, tc.wantStatus, tc.wantUser)
			}
			if tc.wantStatus == http.StatusUnauthorized && (rej.body != "Unauthorized" || rej.wwwAuthenticate != "Basic") {
				t.Errorf("refusal %+v, want basic_auth's 401 with its Basic challenge", rej)
			}
		})
	}
}
