# shellcheck shell=bash
# Reading uringload's JSON results from scripts: with a JSON parser (Debian's python3), never
# by matching lines, since keys repeat at several depths (outcomes per target, per shard).

# Prints the value at dotted PATH in FILE (`json_get r.json requests.completed`); objects and
# arrays as JSON, null as "null". Fails when the path is not there.
json_get() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."):
    value = value[int(key)] if isinstance(value, list) else value[key]
print(json.dumps(value) if isinstance(value, (dict, list)) or value is None else value)
PY
}

# Prints the sum of the numbers in the object at dotted PATH (`json_sum r.json outcomes`).
json_sum() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."):
    value = value[key]
print(sum(value.values()))
PY
}
