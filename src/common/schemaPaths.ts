/**
 * Dotted paths (`customer.email`, `items.price`) against the JSON Schema of a tool's parameters:
 * whether a path names a field of the arguments, and where it passes through a list. What a
 * `sensitive` option and a tool approval's conditions name is checked with them.
 *
 * Workflow-safe: no I/O.
 */
import { isRecord } from './check';
import type { JsonSchema } from './model';

/** Why `path` names no field of the arguments `root` describes; `undefined` when it does. */
export function schemaPathProblem(root: JsonSchema, path: string, tool?: string): string | undefined {
  let nodes = leaves(root, root);
  const parts = path.split('.');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (nodes.some(isOpen)) return undefined;
    const next = nodes.flatMap((n) => fieldSchema(n, part));
    if (next.length === 0) {
      const where = i === 0 ? undefined : parts.slice(0, i).join('.');
      const fields = [...new Set(nodes.flatMap((n) => Object.keys(properties(n))))].sort();
      if (fields.length === 0) return `${where ?? 'the arguments'} ${describeType(nodes)}, with no fields`;
      if (!where) return `not an argument of ${tool ?? 'the tool'} (its arguments: ${fields.join(', ')})`;
      return `${where} has no field "${part}" (its fields: ${fields.join(', ')})`;
    }
    nodes = next.flatMap((n) => leaves(n, root));
  }
  return undefined;
}

/**
 * The leading part of `path` that is a list in the arguments `root` describes (`items` of
 * `items.price`), or `undefined` when none is: what a condition on one value cannot look into.
 */
export function listOnSchemaPath(root: JsonSchema, path: string): string | undefined {
  const parts = path.split('.');
  let nodes = leaves(root, root);
  for (let i = 0; i < parts.length - 1; i++) {
    const next = nodes.flatMap((n) => fieldSchema(n, parts[i]!));
    if (next.some((n) => isList(n, root))) return parts.slice(0, i + 1).join('.');
    nodes = next.flatMap((n) => leaves(n, root));
  }
  return undefined;
}

function isList(node: unknown, root: JsonSchema, seen = new Set<unknown>()): boolean {
  if (!isRecord(node) || seen.has(node)) return false;
  seen.add(node);
  if (typeof node.$ref === 'string') return isList(resolveRef(root, node.$ref), root, seen);
  const branches = [node.anyOf, node.oneOf, node.allOf].flatMap((b) => (Array.isArray(b) ? b : []));
  if (branches.length > 0) return branches.some((b) => isList(b, root, seen));
  return node.type === 'array' || node.items !== undefined || node.prefixItems !== undefined;
}

/** The object-like schemas `node` stands for: references followed, unions spread, lists seen through to their items. */
function leaves(node: unknown, root: JsonSchema, seen = new Set<unknown>()): JsonSchema[] {
  if (node === true) return [{}];
  if (!isRecord(node) || seen.has(node)) return [];
  seen.add(node);
  if (typeof node.$ref === 'string') return leaves(resolveRef(root, node.$ref), root, seen);
  const branches = [node.anyOf, node.oneOf, node.allOf].flatMap((b) => (Array.isArray(b) ? b : []));
  if (branches.length > 0) return branches.flatMap((b) => leaves(b, root, seen));
  const items = [
    ...(node.items !== undefined && typeof node.items !== 'boolean'
      ? Array.isArray(node.items)
        ? node.items
        : [node.items]
      : []),
    ...(Array.isArray(node.prefixItems) ? node.prefixItems : []),
  ];
  if (items.length > 0 || node.type === 'array')
    return items.length > 0 ? items.flatMap((b) => leaves(b, root, seen)) : [{}];
  return [node as JsonSchema];
}

function resolveRef(root: JsonSchema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return {};
  let at: unknown = root;
  for (const part of ref.slice(2).split('/'))
    at = isRecord(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return at ?? {};
}

function properties(node: JsonSchema): Record<string, unknown> {
  return isRecord(node.properties) ? node.properties : {};
}

/** A schema that lets any field through: no type and no fields (`{}`, `z.any()`), or an object that declares no fields. */
function isOpen(node: JsonSchema): boolean {
  const keys = Object.keys(node).filter(
    (k) => !['description', 'title', 'default', 'examples', '$comment'].includes(k),
  );
  if (keys.length === 0) return true;
  const declaresNone =
    Object.keys(properties(node)).length === 0 &&
    !isRecord(node.additionalProperties) &&
    node.additionalProperties !== false;
  return (
    declaresNone &&
    (node.type === 'object' || (node.type === undefined && node.enum === undefined && node.const === undefined))
  );
}

/** The schemas of field `part` in `node`: a declared property, or extra fields (`z.record`). */
function fieldSchema(node: JsonSchema, part: string): unknown[] {
  const own = properties(node)[part];
  if (own !== undefined) return [own];
  if (isRecord(node.additionalProperties)) return [node.additionalProperties];
  if (node.additionalProperties === true) return [{}];
  return [];
}

function describeType(nodes: JsonSchema[]): string {
  const types = [
    ...new Set(
      nodes.flatMap((n) =>
        Array.isArray(n.type) ? n.type : n.type !== undefined ? [n.type] : n.enum ? ['an enum'] : [],
      ),
    ),
  ].map(String);
  if (types.length === 0) return 'has a value';
  return `is ${types.map((t) => (t === 'an enum' ? t : `${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}`)).join(' or ')}`;
}
