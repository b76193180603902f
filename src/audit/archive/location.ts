/**
 * Archives and SIEM streams named as the CLI and the environment name them: an archive is a
 * directory or `s3://bucket/prefix`; a stream is a file or an `http(s)://` endpoint. Object lock
 * settings for S3 come from the options or from `BATON_ARCHIVE_LOCK_MODE` (GOVERNANCE or
 * COMPLIANCE), `BATON_ARCHIVE_RETAIN_DAYS` and `BATON_ARCHIVE_LEGAL_HOLD=true`.
 */
import { FileSiemSink, HttpSiemSink, type HttpSiemSinkOptions, type SiemSink } from '../siem/sink';
import { type ObjectLockOptions, S3Archive, type S3ArchiveOptions } from './s3';
import { type ArchiveStore, DirectoryArchive } from './store';

/** Options of {@link openArchive} for S3 locations. */
export type S3LocationOptions = Omit<S3ArchiveOptions, 'bucket' | 'prefix'>;

/**
 * The archive at `location`: `s3://bucket/prefix` (an S3-compatible bucket), else a directory.
 * @example openArchive('s3://audit-archive/baton', { objectLock: { mode: 'COMPLIANCE', retainDays: 183 } })
 */
export function openArchive(location: string, s3: S3LocationOptions = {}): ArchiveStore {
  if (location.trim() === '') throw new Error('an archive is a directory or s3://bucket/prefix, got an empty name');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return new DirectoryArchive(location);
  const url = location.match(/^s3:\/\/([^/]+)\/?(.*)$/);
  if (!url) throw new Error(`an archive is a directory or s3://bucket/prefix, got ${location}`);
  const objectLock = s3.objectLock ?? objectLockFromEnv();
  return new S3Archive({ ...s3, bucket: url[1]!, prefix: url[2] ?? '', ...(objectLock ? { objectLock } : {}) });
}

/** The SIEM stream at `location`: an `http(s)://` endpoint, else a file of JSON lines. */
export function openSiemSink(location: string, http: HttpSiemSinkOptions = {}): SiemSink {
  if (location.trim() === '') throw new Error('a SIEM stream is a file or an http(s):// endpoint, got an empty name');
  if (/^https?:\/\//i.test(location)) return new HttpSiemSink(location, http);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location))
    throw new Error(`a SIEM stream is a file or an http(s):// endpoint, got ${location}`);
  return new FileSiemSink(location);
}

/** Object lock settings from the environment, or none; a bad value is an error naming it. */
export function objectLockFromEnv(env: NodeJS.ProcessEnv = process.env): ObjectLockOptions | undefined {
  const mode = env.BATON_ARCHIVE_LOCK_MODE?.toUpperCase();
  if (!mode) return undefined;
  if (mode !== 'GOVERNANCE' && mode !== 'COMPLIANCE')
    throw new Error(`BATON_ARCHIVE_LOCK_MODE must be GOVERNANCE or COMPLIANCE, got ${env.BATON_ARCHIVE_LOCK_MODE}`);
  const days = Number(env.BATON_ARCHIVE_RETAIN_DAYS);
  if (!Number.isInteger(days) || days < 1)
    throw new Error(
      `BATON_ARCHIVE_RETAIN_DAYS must be a whole number of days of at least 1 with BATON_ARCHIVE_LOCK_MODE (183 keeps six months), got ${JSON.stringify(env.BATON_ARCHIVE_RETAIN_DAYS ?? '')}`,
    );
  return { mode, retainDays: days, ...(env.BATON_ARCHIVE_LEGAL_HOLD === 'true' ? { legalHold: true } : {}) };
}
