package main

// The stable API's roles, users and permissions. Airflow 2.10.3 serves
// them through airflow/api_connexion/endpoints/forward_to_fab_endpoint.py,
// which hands them to the FAB provider's user database when the auth
// manager is FabAuthManager, and otherwise answers 400 before any
// permission check (_require_fab). airlite's auth backends (§4.11.3) keep
// no FAB user database (no roles, no permissions, no user records beyond
// a password file's names), so it answers as Airflow does without FAB,
// after connexion's query and body checks.

const fabOnlyDetail = "This endpoint is only available when using the default auth manager FabAuthManager."

// roleBodySchema is components/schemas/Role as connexion checks a body.
var roleBodySchema = bodySchema{
	{name: "name", typ: "string", minLen: 1, checks: []string{"type", "minLength"}},
	{name: "actions", typ: "array", itemType: "object", checks: []string{"type", "items"}},
}

// userBodySchema is components/schemas/User (UserCollectionItem, then
// password) as connexion checks a body: the readOnly fields refused.
var userBodySchema = bodySchema{
	rw("first_name", "string", false), rw("last_name", "string", false),
	{name: "username", typ: "string", minLen: 1, checks: []string{"type", "minLength"}},
	{name: "email", typ: "string", minLen: 1, checks: []string{"type", "minLength"}},
	ro("active", "boolean", true), ro("last_login", "string", true),
	ro("login_count", "integer", true), ro("failed_login_count", "integer", true),
	{name: "roles", typ: "array", itemType: "object", checks: []string{"type", "items"}},
	ro("created_on", "string", true), ro("changed_on", "string", true),
	rw("password", "string", false),
}

func checkRoleBody(v any) (map[string]any, error) { return checkBodySchema(v, roleBodySchema) }
func checkUserBody(v any) (map[string]any, error) { return checkBodySchema(v, userBodySchema) }
