#!/usr/bin/python3
"""Validates oversim result files against docs/oversim-result.schema.json.

    validate_json.py SCHEMA FILE...      every FILE must validate
    validate_json.py --reject SCHEMA FILE...  every FILE must NOT validate (the schema says something)
"""
import json
import sys

import jsonschema

args = sys.argv[1:]
reject = args and args[0] == "--reject"
if reject:
    args = args[1:]
schema = json.load(open(args[0]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in args[1:]:
    errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
    if reject and not errors:
        print(f"FAIL: {path} validated, but it breaks the schema on purpose")
        bad += 1
    elif not reject and errors:
        for e in errors[:5]:
            print(f"FAIL: {path}: at {'/'.join(str(p) for p in e.path) or '(top)'}: {e.message[:300]}")
        bad += 1
sys.exit(1 if bad else 0)
