package main

// Variables: one by key, listing them, setting one (Variable.set replaces
// any under the key), changing and deleting one (Airflow 2.10.3
// airflow/models/variable.py, api_connexion/endpoints/variable_endpoint.py).

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// The variables' faults.
const (
	faultVariableNotFound        opFault = "variable_not_found"         // key
	faultVariableToDeleteMissing opFault = "variable_to_delete_missing" // key: Airflow words a delete's miss apart
	faultVariableKeyTooLong      opFault = "variable_key_too_long"      // max, got
)

// variableOrders are the attributes variables are listed by ("value" is
// the stored val).
var variableOrders = []string{"id", "key", "value"}

// maxVariableKeyChars is the variable table's key column, String(250):
// Airflow's database refuses a longer key (a 500); airlite refuses it as
// invalid.
const maxVariableKeyChars = 250

// checkVariableKey is the key column's length.
func checkVariableKey(key string) error {
	if n := len([]rune(key)); n > maxVariableKeyChars {
		return opErr(errInvalid, faultVariableKeyTooLong, "max", strconv.Itoa(maxVariableKeyChars), "got", strconv.Itoa(n))
	}
	return nil
}

// variable is the variable under key.
func (o *operations) variable(key string) (Variable, error) {
	v, ok := o.store.Variable(key)
	if !ok {
		return Variable{}, opErr(errNotFound, faultVariableNotFound, "key", key)
	}
	return v, nil
}

// variables lists variables in q's order (by id when q names none).
func (o *operations) variables(q listQuery) (listed[*Variable], error) {
	vars, err := o.store.Variables() // by id
	if err != nil {
		return listed[*Variable]{}, err
	}
	return orderAndPage(vars, q, variableOrders, func(a, b *Variable, attr string) int {
		switch attr {
		case "key":
			return strings.Compare(a.Key, b.Key)
		case "value":
			return strings.Compare(a.Val, b.Val)
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// setVariable stores a variable under key, replacing any there.
func (o *operations) setVariable(key, val string, description *string) (*Variable, error) {
	if err := checkVariableKey(key); err != nil {
		return nil, err
	}
	return o.store.SetVariable(key, val, description)
}

// variableChange is what a change to a variable sets; nil leaves a field
// as it is.
type variableChange struct {
	val, description *string
}

// updateVariable changes an existing variable.
func (o *operations) updateVariable(key string, c variableChange) (*Variable, error) {
	v, err := o.store.UpdateVariable(key, func(v Variable) Variable {
		if c.val != nil {
			v.Val = *c.val
		}
		if c.description != nil {
			v.Description = c.description
		}
		return v
	})
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultVariableNotFound, "key", key)
	}
	return v, err
}

// deleteVariable removes the variable under key.
func (o *operations) deleteVariable(key string) error {
	err := o.store.DeleteVariable(key)
	if errors.Is(err, errNotFound) {
		return opErr(errNotFound, faultVariableToDeleteMissing, "key", key)
	}
	return err
}

// Airflow 3's variable changes (Airflow 3.2.1 core_api/routes/public/
// variables.py post_variable, core_api/services/public/variables.py
// update_orm_from_pydantic, BulkVariableService).
const (
	faultVariableExists      opFault = "variable_exists"       // key
	faultVariableKeyMismatch opFault = "variable_key_mismatch" // key, body_key
	faultFieldsImmutable     opFault = "fields_immutable"      // fields: an update_mask naming fields no change may set
)

// variableChange3 is a variable as an Airflow 3 body gives it
// (VariableBody): the value as Airflow stores it, and the fields given
// ("key", "value", "description", "team_name").
type variableChange3 struct {
	Key         string
	Value       string
	Description *string
	Team        *string // team_name (errTeamMissing)
	given       fieldSet
	// ValueNull and ValueNotStr tell what JSON the body's value was: null,
	// or neither a string nor null (errVariableValueNotStr).
	ValueNull, ValueNotStr bool
}

// errVariableValueNotStr is an update that sets a variable's value to
// JSON other than a string or null. 3.2.1 sets it by setattr on
// Variable.val (c57fba0e services/public/common.py:116-120), whose setter
// encodes it with bytes(value, "utf-8") (models/variable.py:99-104): a
// TypeError no handler answers, Starlette's plain 500, the session and
// the request's changes rolled back (apache/airflow#71010, reported on
// 3.2.1; #71018 changed it for 3.3). The setter skips None: a null value
// changes nothing. It is no opError: no dialect phrases it.
var errVariableValueNotStr = errors.New("variable value: bytes() of a value that is not a string")

// patchRaises is the error an update of v under mask raises at its
// write: errVariableValueNotStr when the value it sets is not a string.
func (v variableChange3) patchRaises(mask []string) error {
	if v.ValueNotStr && !slices.Contains(mask, "key") && v.given.masked(mask, "key")["value"] {
		return errVariableValueNotStr
	}
	return nil
}

// patchesTeam reports whether an update under mask would store a team:
// the fields given are set (those of the mask), and a mask naming the
// key changes nothing.
func (v variableChange3) patchesTeam(mask []string) bool {
	return !slices.Contains(mask, "key") && storesTeam(v.Team, v.given.masked(mask, "key")["team_name"])
}

// createVariable adds a variable whose key is not taken (POST
// /variables), as Variable.set stores it. With a team, Variable.set
// raises its ValueError (multi_team off), or, for "", the foreign key
// refuses it: either way Starlette's 500 (errTeamMissing).
func (o *operations) createVariable(v variableChange3) (*Variable, error) {
	if _, ok := o.store.Variable(v.Key); ok {
		return nil, opErr(errConflict, faultVariableExists, "key", v.Key)
	}
	if v.Team != nil {
		return nil, errTeamMissing
	}
	return o.setVariable(v.Key, v.Value, v.Description)
}

// patchVariable changes the variable under key by the fields v gives,
// only those of mask when there is one; the key never changes.
func (o *operations) patchVariable(key string, v variableChange3, mask []string) (*Variable, error) {
	if v.Key != key {
		return nil, opErr(errInvalid, faultVariableKeyMismatch, "key", key, "body_key", v.Key)
	}
	if _, err := o.variable(key); err != nil {
		return nil, err
	}
	if slices.Contains(mask, "key") {
		return nil, opErr(errInvalid, faultFieldsImmutable, "fields", "key")
	}
	set := v.given.masked(mask, "key")
	if storesTeam(v.Team, set["team_name"]) {
		return nil, errTeamMissing
	}
	if err := v.patchRaises(mask); err != nil {
		return nil, err
	}
	out, err := o.store.UpdateVariable(key, func(old Variable) Variable {
		if set["value"] && !v.ValueNull {
			old.Val = v.Value
		}
		if set["description"] {
			old.Description = v.Description
		}
		return old
	})
	if errors.Is(err, errNotFound) {
		return nil, opErr(errNotFound, faultVariableNotFound, "key", key)
	}
	return out, err
}

// variableBulk is how bulk actions change variables: a create is
// Variable.set (an existing one replaced), an update patchVariable.
func (o *operations) variableBulk() bulkKind[variableChange3] {
	return bulkKind[variableChange3]{
		resource: "variables",
		key:      func(v variableChange3) string { return v.Key },
		exists: func(key string) (bool, error) {
			_, ok := o.store.Variable(key)
			return ok, nil
		},
		create: func(v variableChange3, _ bool) error {
			_, err := o.setVariable(v.Key, v.Value, v.Description)
			return err
		},
		patch: func(v variableChange3, mask []string) error {
			_, err := o.patchVariable(v.Key, v, mask)
			return err
		},
		delete: o.deleteVariable,
		// A create is Variable.set without the team_name
		// (BulkVariableService.handle_bulk_create): it stores none.
		patchesTeam: func(v variableChange3, mask []string) bool { return v.patchesTeam(mask) },
		patchRaises: func(v variableChange3, mask []string) error { return v.patchRaises(mask) },
	}
}

// variablesKeyed lists variables for Airflow 3 (ordered by "key", "id",
// "_val", "description", "is_encrypted" or "team_name").
func (o *operations) variablesKeyed(q keyedQuery) (listed[*Variable], error) {
	if res, ok, err := pageKeyed(q, "key", o.store.VariableKeyedPage); ok {
		return res, err
	}
	all, err := o.store.Variables()
	if err != nil {
		return listed[*Variable]{}, err
	}
	return listKeyed(all, func(v *Variable) string { return v.Key }, q, func(a, b *Variable, attr string) int {
		switch attr {
		case "key":
			return strings.Compare(a.Key, b.Key)
		case "_val":
			return strings.Compare(a.Val, b.Val)
		case "description":
			return compareNullable(a.Description, b.Description, strings.Compare)
		case "is_encrypted":
			return cmp.Compare(boolInt(a.IsEncrypted), boolInt(b.IsEncrypted))
		case "team_name":
			return 0 // no variable has a team
		}
		return cmp.Compare(a.ID, b.ID)
	}), nil
}

// boolInt orders false before true, as the database does.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
