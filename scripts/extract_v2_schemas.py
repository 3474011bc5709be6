#!/usr/bin/env python3
"""Extract the operations of Airflow 3's public REST API for airlite's tests.

Reads Airflow 3.2.1's OpenAPI document (spec/v2.yaml at tag 3.2.1 of
apache/airflow-client-python, a normalised copy of Airflow's
airflow-core/src/airflow/api_fastapi/core_api/openapi/v2-rest-api-generated.yaml)
and writes testdata/apiv2_schemas.json: for every operation (keyed
"METHOD /api/v2/path") its operationId, its parameters (name, in, required,
schema), its request body (required, schema per content type) and its
responses (schema per status and content type, null for a response without
content), and every component schema they refer to, transitively.
Descriptions, titles and examples of schemas are left out; a parameter keeps
its description, which names the attributes order_by supports.
apiv2_schema_test.go checks airlite's /api/v2 route table and answers
against it.

Usage (from the repository root):
  git --git-dir=<airflow-client-python mirror> show 3.2.1:spec/v2.yaml > /tmp/v2.yaml
  python3 scripts/extract_v2_schemas.py /tmp/v2.yaml > testdata/apiv2_schemas.json

Needs PyYAML.
"""
import json
import sys

import yaml

DROP = {"description", "title", "example", "examples", "externalDocs", "deprecated"}
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def strip(node, names=False):
    """Drop documentation keywords; names=True is a properties map, whose
    keys are field names (a field may be called "description")."""
    if isinstance(node, dict):
        return {k: strip(v, k == "properties" and not names) for k, v in node.items() if names or k not in DROP}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def refs(node, found):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            found.add(ref.rsplit("/", 1)[1])
        for v in node.values():
            refs(v, found)
    elif isinstance(node, list):
        for v in node:
            refs(v, found)


def content(node):
    """A content map as {media type: schema}; None when there is none."""
    if not node or "content" not in node:
        return None
    return {media: strip(c["schema"]) if "schema" in c else None for media, c in node["content"].items()}


def parameter(p):
    out = {"name": p["name"], "in": p["in"], "required": bool(p.get("required", False)), "schema": strip(p.get("schema", {}))}
    if "description" in p:
        out["description"] = p["description"]
    return out


def main(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    operations = {}
    for route, item in doc["paths"].items():
        shared = item.get("parameters", [])
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            body = op.get("requestBody")
            operations[method.upper() + " " + route] = {
                "operationId": op["operationId"],
                "parameters": [parameter(p) for p in shared + op.get("parameters", [])],
                "requestBody": None if body is None else {"required": bool(body.get("required", False)), "content": content(body)},
                "responses": {str(status): content(resp) for status, resp in op.get("responses", {}).items()},
            }
    needed, seen = set(), set()
    refs(operations, needed)
    while needed - seen:
        name = sorted(needed - seen)[0]
        seen.add(name)
        refs(doc["components"]["schemas"][name], needed)
    schemas = {name: strip(doc["components"]["schemas"][name]) for name in sorted(seen)}
    json.dump({"source": "Airflow 3.2.1 spec/v2.yaml of apache/airflow-client-python (tag 3.2.1)",
               "operations": operations, "schemas": schemas}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
