package main

// Variables: one by key, listing them, setting one (Variable.set replaces
// any under the key), changing and deleting one (Airflow 2.10.3
// airflow/models/variable.py, api_connexion/endpoints/variable_endpoint.py).

import (
	"cmp"
	"errors"
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
