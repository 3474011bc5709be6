package main

import "testing"

// TestFileToken checks the token against Airflow's own test vector:
// Airflow 2.10.3 tests/api_connexion/endpoints/test_dag_endpoint.py:196
// (secret_key "mysecret", fileloc /tmp/dag_1.py).
func TestFileToken(t *testing.T) {
	t.Parallel()
	secret := []byte("mysecret")
	const want = "Ii90bXAvZGFnXzEucHki.EnmIdPaUPo26lHQClbWMbDFD1Pk"
	if got := signFileToken(secret, "/tmp/dag_1.py"); got != want {
		t.Errorf("signFileToken = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		token, path string
		ok          bool
	}{
		{want, "/tmp/dag_1.py", true},
		{"Ii90bXAvZGFnXzEucHki.EnmIdPaUPo26lHQClbWMbDFD1Pj", "", false},
		{"Ii90bXAvZGFnXzEucHki", "", false},
		{signFileToken([]byte("other"), "/tmp/dag_1.py"), "", false},
		{signFileToken(secret, "fixtures/ünï.yaml"), "fixtures/ünï.yaml", true},
	} {
		path, err := loadFileToken(secret, tc.token)
		if (err == nil) != tc.ok || path != tc.path {
			t.Errorf("loadFileToken(%q) = %q, %v; want %q, ok %v", tc.token, path, err, tc.path, tc.ok)
		}
	}
}
