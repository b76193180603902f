/**
 * Where archived audits are kept: a port with two adapters, a directory ({@link DirectoryArchive})
 * and an S3-compatible bucket (`S3Archive`). Objects are written once: `putIfAbsent` writes a
 * whole object under a key no object has, or leaves the one there, so an archiving attempt that is
 * retried (a worker lost mid-write, a second archiver) leaves the same single object.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What `putIfAbsent` did. */
export type PutOutcome = 'written' | 'exists';

/** An archive's storage. Keys are `/`-separated paths of URI-encoded segments (see `./keys.ts`). */
export interface ArchiveStore {
  /** Where it is, for messages: the directory, or `s3://bucket/prefix`. */
  readonly location: string;
  /** Write `body` under `key` unless an object is there; a reader never sees part of it. */
  putIfAbsent(key: string, body: string): Promise<PutOutcome>;
  /** The object under `key`, or `undefined`. */
  get(key: string): Promise<string | undefined>;
  /** The keys under `prefix` (a key's leading segments), sorted. */
  list(prefix?: string): Promise<string[]>;
  /** Delete the object under `key`, every version of it where the store keeps versions. */
  delete(key: string): Promise<void>;
}

/**
 * An archive in a directory: `<dir>/<key>`. A write goes to a temporary file beside its key, is
 * flushed to disk, then linked to the key, which fails when the key exists: two writers of one key
 * leave one file. Temporary files (`.<name>.<uuid>.tmp`) a killed writer left are skipped by
 * `list` and removed by the next write of their key.
 */
export class DirectoryArchive implements ArchiveStore {
  readonly location: string;

  constructor(private readonly dir: string) {
    this.location = path.resolve(dir);
  }

  async putIfAbsent(key: string, body: string): Promise<PutOutcome> {
    const file = this.file(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    if (fs.existsSync(file)) return 'exists';
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
    const handle = await fs.promises.open(temp, 'wx');
    try {
      await handle.writeFile(body);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.promises.link(temp, file);
      await syncDir(path.dirname(file));
      return 'written';
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
      throw err;
    } finally {
      await removeTemporaries(file);
    }
  }

  async get(key: string): Promise<string | undefined> {
    try {
      return await fs.promises.readFile(this.file(key), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async list(prefix = ''): Promise<string[]> {
    const keys: string[] = [];
    const walk = async (dir: string, at: string): Promise<void> => {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      for (const e of entries) {
        if (e.name.startsWith('.')) continue;
        const key = at ? `${at}/${e.name}` : e.name;
        if (e.isDirectory()) await walk(path.join(dir, e.name), key);
        else if (e.isFile() && key.startsWith(prefix)) keys.push(key);
      }
    };
    await walk(this.location, '');
    return keys.sort();
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.file(key), { force: true });
  }

  private file(key: string): string {
    const segments = key.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes(path.sep)))
      throw new Error(`not an archive key: ${JSON.stringify(key)}`);
    return path.join(this.location, ...segments);
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Remove the temporary files of `file`'s writes: this one's, and those of writers killed before they linked theirs. */
async function removeTemporaries(file: string): Promise<void> {
  const dir = path.dirname(file);
  const mine = `.${path.basename(file)}.`;
  const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((n) => n.startsWith(mine) && n.endsWith('.tmp'))
      .map((n) => fs.promises.rm(path.join(dir, n), { force: true })),
  );
}
