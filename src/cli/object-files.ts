/**
 * Objects read from `-f FILE|DIR|-` as `kubectl apply -f` reads them: multi-document YAML, JSON,
 * and `List`s (a `kind: …List` with `items`, as `kubectl get -o yaml` prints several objects),
 * every document in order. A folder is read file by file (`.yaml`, `.yml`, `.json`, by name),
 * its subfolders too with `recursive`. Everything is read before anything is done with it: a
 * document that does not parse, or is not an object with apiVersion and kind, is a UsageError of
 * one line naming the file and the document.
 *
 * Speed: a JSON file is parsed by JSON.parse; YAML by js-yaml, several times faster than the `yaml`
 * package on a large release (BENCHMARKS.md, "Readiness"). When js-yaml refuses a file, `yaml`
 * reads it again to name the document that does not parse.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { parseAllDocuments } from 'yaml';
import { UsageError } from '../errors.js';
import type { KubeObject } from '../kube/index.js';

export interface SourcedObject {
  obj: KubeObject;
  /** The file it came from (`stdin` for -), and which document of it, from 1. */
  file: string;
  document: number;
}

const EXTENSIONS = /\.(ya?ml|json)$/;

/** The files a `-f` names: the file itself, or a folder's YAML and JSON files (its subfolders' with `recursive`). */
function filesOf(path: string, recursive: boolean): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch (err) {
    throw new UsageError(`-f ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (err as Error).message}`);
  }
  if (!stat.isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) {
      if (recursive) out.push(...filesOf(full, true));
    } else if (EXTENSIONS.test(entry.name)) out.push(full);
  }
  return out;
}

/** The documents of a file: JSON as one, YAML as many; null for an empty one. */
function documentsOf(text: string, file: string): unknown[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return [JSON.parse(text)];
    } catch {
      // JSON is YAML too: the YAML reader says what is wrong, and where.
    }
  }
  try {
    return loadAll(text, null, { filename: file });
  } catch {
    const docs = parseAllDocuments(text);
    const bad = docs.findIndex((d) => d.errors.length > 0);
    if (bad >= 0) throw new UsageError(`${file}: document ${bad + 1}: not valid YAML or JSON: ${docs[bad]!.errors[0]!.message.split('\n')[0]}`);
    return docs.map((d) => d.toJS() as unknown);
  }
}

/** Every object of `text`, read from `file`, in order; Lists give their items. */
export function objectsOfText(text: string, file: string): SourcedObject[] {
  const out: SourcedObject[] = [];
  documentsOf(text, file).forEach((value, i) => {
    const where = `${file}: document ${i + 1}`;
    // An empty document (around a `---`, or a file of comments) holds nothing.
    if (value === null || value === undefined) return;
    const obj = value as Partial<KubeObject>;
    if (typeof obj !== 'object' || Array.isArray(obj)) throw new UsageError(`${where}: not a Kubernetes object`);
    const missing = [!obj.apiVersion && 'apiVersion', !obj.kind && 'kind'].filter(Boolean);
    if (missing.length > 0) throw new UsageError(`${where}: the object has no ${missing.join(' and ')}`);
    if (/List$/.test(obj.kind!) && Array.isArray((obj as { items?: unknown }).items)) {
      ((obj as { items: unknown[] }).items ?? []).forEach((item, j) => {
        const it = item as Partial<KubeObject> | null;
        if (!it || typeof it !== 'object' || !it.apiVersion || !it.kind)
          throw new UsageError(`${where}: items[${j}] is not a Kubernetes object with apiVersion and kind`);
        out.push({ obj: { ...it, metadata: it.metadata ?? {} } as KubeObject, file, document: i + 1 });
      });
      return;
    }
    out.push({ obj: { ...obj, metadata: obj.metadata ?? {} } as KubeObject, file, document: i + 1 });
  });
  return out;
}

/** The objects of every `-f`, in order; `-` is `stdin`, read by the caller beforehand. */
export function readObjectFiles(paths: readonly string[], o: { recursive: boolean; stdin?: string | undefined }): SourcedObject[] {
  const out: SourcedObject[] = [];
  for (const p of paths) {
    if (p === '-') {
      if (o.stdin === undefined) throw new UsageError('-f -: there is no stdin to read objects from');
      out.push(...objectsOfText(o.stdin, 'stdin'));
      continue;
    }
    for (const file of filesOf(p, o.recursive)) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError(`-f ${file}: ${(err as Error).message}`);
      }
      out.push(...objectsOfText(text, file));
    }
  }
  return out;
}

/** Objects to apply: each needs a name (one line naming its file and document otherwise), and there must be one. */
export function requireApplicable(objects: SourcedObject[], paths: readonly string[]): SourcedObject[] {
  if (objects.length === 0) throw new UsageError(`-f ${paths.join(',')}: holds no objects`);
  for (const o of objects) if (!o.obj.metadata.name) throw new UsageError(`${o.file}: document ${o.document}: the object has no metadata.name`);
  return objects;
}

/** Whether `path` is a folder (false for stdin, and for what does not exist: reading it says so). */
export function isFolder(path: string): boolean {
  if (path === '-') return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
