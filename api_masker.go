package main

// Airflow's secrets masker as the APIs show values through it: which
// names hide their values (a row of the edition table, editionRules.
// masker: the release's DEFAULT_SENSITIVE_FIELDS), the redaction of a
// decoded value, the merge of a value a client sent back masked, and the
// action log's maskers of variable and connection bodies.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// secretsMasker is the secrets masker of one release.
type secretsMasker struct {
	// names are DEFAULT_SENSITIVE_FIELDS: a name that holds one of them,
	// in any case, has its value hidden.
	names []string
	// leads are the names' first two bytes, a bit each (leads[a] holds b
	// when a name starts with a and b): a name holds one of names where
	// it holds that name's first two bytes, so hides looks for names
	// only there, and most keys a request logs (logical_date,
	// dag_run_id) have no such place, where it looked for each name in
	// turn along the whole key (17 in 3.2.1; a v2 trigger's action row
	// masks every key of its body). nil: look for each name.
	leads *[256][4]uint64

	// What mask_secret learns in a task process, release by release
	// (secretRegistry). minSecretLength: shorter secrets are not learnt
	// (3.2.1 shared/secrets_masker add_mask: min_length_to_mask, 5; 2.10.3
	// has none), nor skipSecrets, in any case (3.2.1
	// SECRETS_TO_SKIP_MASKING).
	minSecretLength int
	skipSecrets     []string
	// jsonVariableKeys: var.json masks a decoded value key by key (2.10.3
	// models/variable.py:149 mask_secret(obj, key), a dict's values
	// under their own keys); otherwise only a decoded string, under the
	// variable's key (3.2.1 task-sdk execution_time/context.py:241).
	jsonVariableKeys bool
	// connectionSecrets are what loading a connection teaches the masker
	// (nil: nothing).
	connectionSecrets func(c *Connection) []string
	// secrets is the replacer of the secrets learnt (nil: none): every
	// occurrence in a string becomes "***" (SecretsMasker.replacer).
	secrets *strings.Replacer
}

// newSecretsMasker is the masker that hides the values of names.
func newSecretsMasker(names []string) secretsMasker {
	m := secretsMasker{names: names, leads: new([256][4]uint64)}
	for _, s := range names {
		if len(s) < 2 {
			return secretsMasker{names: names} // a name of one byte: no pairs to rule out by
		}
		m.leads[s[0]][s[1]>>6] |= 1 << (s[1] & 63)
	}
	return m
}

// maskerNames2103 are Airflow 2.10.3's DEFAULT_SENSITIVE_FIELDS
// (airflow/utils/log/secrets_masker.py:57-72).
var maskerNames2103 = []string{"access_token", "api_key", "apikey", "authorization", "passphrase", "passwd",
	"password", "private_key", "secret", "token", "keyfile_dict", "service_account"}

// maskerNames321 are Airflow 3.2.1's (shared/secrets_masker): 2.10.3's,
// access_key and connection_string (apache/airflow#61580), proxy,
// proxy_password and proxies (#61906). Those #66673 added (dsn, bearer,
// webhook_url, auth_header, service_key) came after 3.2.1.
var maskerNames321 = append(slices.Clone(maskerNames2103), "access_key", "connection_string", "proxy", "proxy_password", "proxies")

// masker2103 is Airflow 2.10.3's secrets masker.
func masker2103() secretsMasker {
	m := newSecretsMasker(maskerNames2103)
	m.jsonVariableKeys = true
	m.connectionSecrets = connectionSecrets2103
	return m
}

// masker321 is Airflow 3.2.1's: its names, secrets of 5 characters at
// least ([logging] min_length_masked_secret's default), never "airflow".
func masker321() secretsMasker {
	m := newSecretsMasker(maskerNames321)
	m.minSecretLength = 5
	m.skipSecrets = []string{"airflow"}
	m.connectionSecrets = connectionSecrets321
	return m
}

// maxRedactDepth is SecretsMasker.MAX_RECURSION_DEPTH.
const maxRedactDepth = 5

// maskedValue is what the secrets masker puts in place of a hidden value.
const maskedValue = "***"

// hides is should_hide_value_for_key: the name, trimmed and lower-cased,
// holds one of the names.
func (m secretsMasker) hides(name string) bool {
	name = strings.ToLower(strings.TrimSpace(name))
	if m.leads == nil {
		return slices.ContainsFunc(m.names, func(s string) bool { return strings.Contains(name, s) })
	}
	// name holds s where name[i:] starts with s, and there name[i] and
	// name[i+1] are s's first two bytes.
	for i := 0; i+1 < len(name); i++ {
		if m.leads[name[i]][name[i+1]>>6]&(1<<(name[i+1]&63)) == 0 {
			continue
		}
		if slices.ContainsFunc(m.names, func(s string) bool { return strings.HasPrefix(name[i:], s) }) {
			return true
		}
	}
	return false
}

// redact is the masker's redact of a decoded value: under a sensitive
// name every string becomes "***" (other scalars stay); deeper than
// maxRedactDepth nothing changes. A dict or list with nothing to hide is
// returned as it is, not copied: callers only render the result.
func (m secretsMasker) redact(v any, name string, depth int) any {
	out, _ := m.redactChanged(v, name, depth)
	return out
}

// redactChanged is redact, and whether anything was hidden.
func (m secretsMasker) redactChanged(v any, name string, depth int) (any, bool) {
	if depth > maxRedactDepth {
		return v, false
	}
	if name != "" && m.hides(name) {
		return redactAll(v, depth), true
	}
	switch x := v.(type) {
	case string:
		if m.secrets == nil {
			return v, false
		}
		out := m.secrets.Replace(x)
		return out, out != x
	case map[string]any:
		var out map[string]any // nil until a field changes
		for k, f := range x {
			val, changed := m.redactChanged(f, k, depth+1)
			if changed && out == nil {
				out = make(map[string]any, len(x))
				for k2, f2 := range x {
					out[k2] = f2
				}
			}
			if out != nil {
				out[k] = val
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case pyDict:
		var out pyDict // nil until a field changes
		for i, f := range x {
			val, changed := m.redactChanged(f.val, f.key, depth+1)
			if changed && out == nil {
				out = slices.Clone(x)
			}
			if out != nil {
				out[i].val = val
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any // nil until an item changes
		for i, item := range x {
			val, changed := m.redactChanged(item, "", depth+1)
			if changed && out == nil {
				out = slices.Clone(x)
			}
			if out != nil {
				out[i] = val
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

// redactAll is _redact_all: every string of v becomes "***".
func redactAll(v any, depth int) any {
	if _, ok := v.(string); ok || depth > maxRedactDepth {
		return maskedValue
	}
	switch x := v.(type) {
	case pyDict:
		out := make(pyDict, len(x))
		for i, f := range x {
			out[i] = pyField{f.key, redactAll(f.val, depth+1)}
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, f := range x {
			out[k] = redactAll(f, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = redactAll(item, depth+1)
		}
		return out
	}
	return v
}

// secretRegistry is what mask_secret has taught one task process's
// secrets masker: the values its templates read from sensitive
// variables and from connections. nil learns nothing. Safe for
// concurrent use (a Python try's template requests are served while the
// scheduler waits).
type secretRegistry struct {
	base   secretsMasker
	mu     sync.Mutex
	values []string
}

// newSecretRegistry is a task process's masker before it learnt any
// secret.
func newSecretRegistry(m secretsMasker) *secretRegistry { return &secretRegistry{base: m} }

// add is add_mask: a string is learnt when it has no name or a sensitive
// one; a dict's values are added under their own keys, a list's under
// the list's name; other values teach nothing.
func (r *secretRegistry) add(v any, name string) {
	if r == nil {
		return
	}
	switch x := v.(type) {
	case string:
		if x == "" || len(x) < r.base.minSecretLength || slices.Contains(r.base.skipSecrets, strings.ToLower(x)) {
			return
		}
		if name != "" && !r.base.hides(name) {
			return
		}
		r.mu.Lock()
		if !slices.Contains(r.values, x) {
			r.values = append(r.values, x)
		}
		r.mu.Unlock()
	case pyDict:
		for _, f := range x {
			r.add(f.val, f.key)
		}
	case map[string]any:
		for k, f := range x {
			r.add(f, k)
		}
	case []any:
		for _, item := range x {
			r.add(item, name)
		}
	}
}

// addVariable is Variable.get's mask_secret of a value read: json says
// the template read it as var.json (decoded).
func (r *secretRegistry) addVariable(key string, value any, json bool) {
	if r == nil {
		return
	}
	if _, isString := value.(string); json && !isString && !r.base.jsonVariableKeys {
		return
	}
	r.add(value, key)
}

// addConnection is what loading connection c teaches the masker.
func (r *secretRegistry) addConnection(c *Connection) {
	if r == nil || r.base.connectionSecrets == nil {
		return
	}
	for _, s := range r.base.connectionSecrets(c) {
		r.add(s, "")
	}
}

// masker is the release's masker with the secrets learnt so far: a
// string holding one becomes "***" there. Where two secrets start at the
// same place the longer is hidden (Airflow's alternation tries its
// patterns in a set's order, which Python does not fix).
func (r *secretRegistry) masker() secretsMasker {
	if r == nil {
		return secretsMasker{}
	}
	r.mu.Lock()
	values := slices.Clone(r.values)
	r.mu.Unlock()
	m := r.base
	if len(values) == 0 {
		return m
	}
	slices.SortStableFunc(values, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	pairs := make([]string, 0, 2*len(values))
	for _, s := range values {
		pairs = append(pairs, s, maskedValue)
	}
	m.secrets = strings.NewReplacer(pairs...)
	return m
}

// connectionSecrets2103 are what 2.10.3 learns of a connection it loads
// (models/connection.py:214-217 on_db_load): the password and its
// urllib.parse.quote form.
func connectionSecrets2103(c *Connection) []string {
	if c.Password == nil || *c.Password == "" {
		return nil
	}
	return []string{*c.Password, pyURLQuote(*c.Password)}
}

// connectionSecrets321 are what 3.2.1's task process learns of a
// connection it reads (task-sdk execution_time/context.py:125-130
// _mask_connection_secrets): the password and the whole extra text.
func connectionSecrets321(c *Connection) []string {
	var out []string
	for _, s := range []*string{c.Password, c.Extra} {
		if s != nil && *s != "" {
			out = append(out, *s)
		}
	}
	return out
}

// pyURLQuote is urllib.parse.quote(s) with its default safe "/": every
// byte but ASCII letters, digits, "_.-~" and "/" as %XX.
func pyURLQuote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_.-~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// merge is Airflow 3's secrets masker merge (apache/airflow#53943,
// _shared/secrets_masker: SecretsMasker._merge): a value a client read
// masked and sent back is restored from the stored one where it is still
// "***" under a sensitive name (any depth below one too); a dict keeps the
// new one's keys, in its order, merging those the stored one also has; a
// list merges item by item up to the stored one's length; deeper than
// maxRedactDepth only a "***" itself is restored.
func (m secretsMasker) merge(newV, oldV any, name string, depth int, force bool) any {
	if depth > maxRedactDepth {
		if s, ok := newV.(string); ok && s == maskedValue {
			return oldV
		}
		return newV
	}
	sensitive := force || (name != "" && m.hides(name))
	switch n := newV.(type) {
	case pyDict:
		o, ok := oldV.(pyDict)
		if !ok {
			break
		}
		out := make(pyDict, len(n))
		for i, f := range n {
			out[i] = f
			j := slices.IndexFunc(o, func(g pyField) bool { return g.key == f.key })
			if j < 0 {
				continue
			}
			child := f.key
			if sensitive {
				child = ""
			}
			out[i].val = m.merge(f.val, o[j].val, child, depth+1, sensitive)
		}
		return out
	case []any:
		o, ok := oldV.([]any)
		if !ok {
			break
		}
		out := make([]any, len(n))
		for i, item := range n {
			switch {
			case i >= len(o):
				out[i] = item
			case sensitive && item == any(maskedValue):
				out[i] = o[i]
			default:
				out[i] = m.merge(item, o[i], "", depth+1, sensitive)
			}
		}
		return out
	}
	if s, ok := newV.(string); ok && sensitive && s == maskedValue {
		return oldV
	}
	return newV
}

// maskVariableFields is the action log decorator's _mask_variable_fields:
// a value that follows a key is masked as if it sat under that key's
// name.
func (m secretsMasker) maskVariableFields(in pyDict) pyDict {
	out := make(pyDict, 0, len(in))
	keyName := ""
	for _, f := range in {
		switch {
		case f.key == "key":
			keyName, _ = f.val.(string)
		case keyName != "" && (f.key == "val" || f.key == "value"):
			f.val = m.redact(f.val, keyName, 0)
			keyName = ""
		}
		out = append(out, f)
	}
	return out
}

// maskConnectionFields is the action log decorator's
// _mask_connection_fields as 2.10.3 has it: every field through the
// masker under its own name, and extra read as JSON and masked key by
// key.
func (m secretsMasker) maskConnectionFields(in pyDict) pyDict {
	out := make(pyDict, 0, len(in))
	for _, f := range in {
		if s, ok := f.val.(string); ok && f.key == "extra" && s != "" {
			// Airflow: json.loads, then .items(); a JSON value that is not
			// an object fails there (a 500), taken here as non-JSON.
			d, err := decodePyJSON([]byte(s))
			obj, isObj := d.(pyDict)
			if err != nil || !isObj {
				out = append(out, pyField{f.key, "Encountered non-JSON in `extra` field"})
				continue
			}
			masked := make(pyDict, len(obj))
			for i, g := range obj {
				masked[i] = pyField{g.key, m.redact(g.val, g.key, 0)}
			}
			out = append(out, pyField{f.key, masked})
			continue
		}
		out = append(out, pyField{f.key, m.redact(f.val, f.key, 0)})
	}
	return out
}
