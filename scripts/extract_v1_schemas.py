#!/usr/bin/env python3
"""Extract the response schemas of Airflow's stable REST API for airlite's tests.

Reads Airflow 2.10.3's OpenAPI document (airflow/api_connexion/openapi/v1.yaml)
and writes testdata/apiv1_schemas.json: for every operation, the JSON schema
of each response by status, and the component schemas they refer to, with
descriptions and examples left out. apiv1_schema_test.go checks every answer
of airlite's /api/v1 against it.

Usage (from the repository root):
  git -C <airflow checkout> show 2.10.3:airflow/api_connexion/openapi/v1.yaml > /tmp/v1.yaml
  python3 scripts/extract_v1_schemas.py /tmp/v1.yaml > testdata/apiv1_schemas.json

Needs PyYAML.
"""
import json
import sys

import yaml

DROP = {"description", "example", "examples", "externalDocs", "x-codegen-request-body-name", "deprecated"}


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


def main(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    base = doc["servers"][0]["url"]
    components = doc["components"]
    operations = {}
    for route, item in doc["paths"].items():
        for method, op in item.items():
            if method == "parameters":
                continue
            responses = {}
            for status, resp in op.get("responses", {}).items():
                if "$ref" in resp:
                    resp = components["responses"][resp["$ref"].rsplit("/", 1)[1]]
                content = resp.get("content", {})
                body = content.get("application/json")
                responses[str(status)] = strip(body["schema"]) if body and "schema" in body else None
            operations[method.upper() + " " + base + route] = responses
    needed, seen = set(), set()
    refs(operations, needed)
    while needed - seen:
        name = sorted(needed - seen)[0]
        seen.add(name)
        refs(components["schemas"][name], needed)
    schemas = {name: strip(components["schemas"][name]) for name in sorted(seen)}
    json.dump({"source": "Airflow 2.10.3 airflow/api_connexion/openapi/v1.yaml",
               "operations": operations, "schemas": schemas}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
