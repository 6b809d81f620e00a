// Validates Kubernetes manifests offline, as `kubectl apply --dry-run=server` would without a
// cluster: every document against the API schema of its kind (kubernetes-models: types,
// required fields, enumerations), and every field name against the model's attributes
// (@kubernetes/client-node), since the schemas accept unknown fields and a misspelt one
// (`comand:`) would otherwise be silently ignored by the API server.
//   node deploy/k8s/check-manifests.mjs FILE.yaml...   (exit 1 and one line per problem)
import { readFileSync } from "node:fs";
import * as k8s from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";

// kind -> [module of kubernetes-models, class, client-node model].
const kinds = {
  "batch/v1 Job": ["kubernetes-models/batch/v1/Job", "Job", "V1Job"],
  "v1 ConfigMap": ["kubernetes-models/v1/ConfigMap", "ConfigMap", "V1ConfigMap"],
  "v1 PersistentVolumeClaim": [
    "kubernetes-models/v1/PersistentVolumeClaim", "PersistentVolumeClaim", "V1PersistentVolumeClaim"],
};

// Reports every key of `value` that the client-node model `type` does not have, recursing
// into nested models, arrays of them and maps of them.
function unknownFields(value, type, path, problems) {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) value.forEach((v, i) => unknownFields(v, array[1], `${path}[${i}]`, problems));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) unknownFields(v, map[1], `${path}.${k}`, problems);
    }
    return;
  }
  const model = k8s[type];
  if (!model || typeof model.getAttributeTypeMap !== "function") return;  // A scalar.
  if (!value || typeof value !== "object" || Array.isArray(value)) return;  // Schema's job.
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  for (const [key, child] of Object.entries(value)) {
    if (!attributes.has(key)) {
      problems.push(`${path}.${key}: no such field in ${type}`);
    } else {
      unknownFields(child, attributes.get(key), `${path}.${key}`, problems);
    }
  }
}

let failed = 0;
for (const file of process.argv.slice(2)) {
  const documents = parseAllDocuments(readFileSync(file, "utf8"));
  for (const [index, document] of documents.entries()) {
    const where = `${file} (document ${index + 1})`;
    const problems = document.errors.map((e) => `YAML: ${e.message}`);
    const object = problems.length ? null : document.toJSON();
    const kind = object && kinds[`${object.apiVersion} ${object.kind}`];
    if (object && !kind) problems.push(`${object.apiVersion} ${object.kind}: not a kind this check knows`);
    if (kind) {
      const module = await import(kind[0]);
      try {
        new module[kind[1]](object).validate();
      } catch (error) {
        problems.push(`schema: ${error.message}`);
      }
      unknownFields(object, kind[2], "", problems);
    }
    for (const problem of problems) console.error(`${where}: ${problem}`);
    failed += problems.length;
  }
}
process.exit(failed === 0 ? 0 : 1);
