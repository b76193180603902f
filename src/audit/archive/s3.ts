/**
 * An archive in an S3-compatible bucket, through the AWS SDK (`@aws-sdk/client-s3`): AWS S3, or any
 * server that speaks its API (MinIO, Ceph, moto). Objects are written with `If-None-Match: *`, so a
 * second write of a key leaves the first object; object lock settings (retention mode and period,
 * legal hold) are passed through on each write, so the bucket keeps every archived audit for as
 * long as the law or your controls require, whatever its writers' credentials allow later.
 */
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { ArchiveStore, PutOutcome } from './store';

/** Object lock settings written with each object (the bucket must have object lock enabled). */
export interface ObjectLockOptions {
  /** `COMPLIANCE`: nobody can delete the object before its retention ends; `GOVERNANCE`: holders of `s3:BypassGovernanceRetention` can (an erasure for a data subject needs that). */
  mode: 'GOVERNANCE' | 'COMPLIANCE';
  /** How long each object is kept from its write, in days (e.g. 183 for six months). */
  retainDays: number;
  /** Also put a legal hold on each object. @default false */
  legalHold?: boolean;
}

/** Options of {@link S3Archive}. */
export interface S3ArchiveOptions {
  bucket: string;
  /** Key prefix inside the bucket, without a trailing `/`. @default "" */
  prefix?: string;
  /**
   * The SDK's client configuration (region, credentials, endpoint). @default the SDK's own chain:
   * `AWS_REGION`, `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY` or a profile, `AWS_ENDPOINT_URL_S3`
   * or `AWS_ENDPOINT_URL` for an S3-compatible server (path-style addressing is then used)
   */
  client?: S3ClientConfig;
  objectLock?: ObjectLockOptions;
  /** Delete objects under governance-mode retention (an erasure for a data subject). @default false */
  bypassGovernanceRetention?: boolean;
}

type S3Module = typeof S3Sdk;

/** An archive in an S3-compatible bucket. */
export class S3Archive implements ArchiveStore {
  readonly location: string;
  private readonly prefix: string;
  private readonly sdk: S3Module;
  private readonly s3: S3Client;

  constructor(private readonly options: S3ArchiveOptions) {
    // Loaded only by the deployments that archive to S3.
    this.sdk = require('@aws-sdk/client-s3') as S3Module;
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.location = `s3://${options.bucket}${this.prefix ? `/${this.prefix}` : ''}`;
    const endpoint =
      options.client?.endpoint ?? (process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL || undefined);
    this.s3 = new this.sdk.S3Client({
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      region: process.env.AWS_REGION || 'us-east-1',
      ...options.client,
    });
  }

  async putIfAbsent(key: string, body: string): Promise<PutOutcome> {
    const lock = this.options.objectLock;
    try {
      await this.s3.send(
        new this.sdk.PutObjectCommand({
          Bucket: this.options.bucket,
          Key: this.key(key),
          Body: body,
          ContentType: 'application/json',
          IfNoneMatch: '*',
          ...(lock
            ? {
                ObjectLockMode: lock.mode,
                ObjectLockRetainUntilDate: new Date(Date.now() + lock.retainDays * 86_400_000),
                ...(lock.legalHold ? { ObjectLockLegalHoldStatus: 'ON' as const } : {}),
              }
            : {}),
        }),
      );
      return 'written';
    } catch (err) {
      // 412: an object is there; 409: another write of the key is in flight (it will leave the object).
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 412 || (err as Error).name === 'PreconditionFailed') return 'exists';
      if (status === 409 && (err as Error).name === 'ConditionalRequestConflict')
        throw Object.assign(new Error(`another write of ${key} is in flight; try again`), { cause: err });
      throw err;
    }
  }

  async get(key: string): Promise<string | undefined> {
    try {
      const got = await this.s3.send(
        new this.sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) }),
      );
      return await got.Body?.transformToString('utf8');
    } catch (err) {
      if (
        (err as Error).name === 'NoSuchKey' ||
        (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
      )
        return undefined;
      throw err;
    }
  }

  async list(prefix = ''): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    const strip = this.prefix ? this.prefix.length + 1 : 0;
    do {
      const page = await this.s3.send(
        new this.sdk.ListObjectsV2Command({
          Bucket: this.options.bucket,
          Prefix: this.key(prefix),
          ContinuationToken: token,
        }),
      );
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(strip));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async delete(key: string): Promise<void> {
    const full = this.key(key);
    const bypass = this.options.bypassGovernanceRetention ? { BypassGovernanceRetention: true } : {};
    // In a versioned bucket (object lock needs one) a plain delete only hides the object: delete each version.
    let keyMarker: string | undefined;
    let versionMarker: string | undefined;
    let deleted = false;
    do {
      const page = await this.s3.send(
        new this.sdk.ListObjectVersionsCommand({
          Bucket: this.options.bucket,
          Prefix: full,
          KeyMarker: keyMarker,
          VersionIdMarker: versionMarker,
        }),
      );
      for (const v of [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]) {
        if (v.Key !== full) continue;
        await this.s3.send(
          new this.sdk.DeleteObjectCommand({
            Bucket: this.options.bucket,
            Key: full,
            ...(v.VersionId && v.VersionId !== 'null' ? { VersionId: v.VersionId } : {}),
            ...bypass,
          }),
        );
        deleted = true;
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      versionMarker = page.IsTruncated ? page.NextVersionIdMarker : undefined;
    } while (keyMarker);
    if (!deleted)
      await this.s3.send(new this.sdk.DeleteObjectCommand({ Bucket: this.options.bucket, Key: full, ...bypass }));
  }

  /** Close the SDK's connections. */
  close(): void {
    this.s3.destroy();
  }

  private key(key: string): string {
    return this.prefix ? `${this.prefix}/${key}` : key;
  }
}
