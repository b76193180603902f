/**
 * The S3-compatible server the archive tests write to: moto, provided and started before the
 * tests with a bucket that has object lock, the AWS settings pointed at it, and stopped after; or,
 * where moto cannot be had, the reason the S3 cases are skipped.
 */
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { provideMoto, startMoto } from '../../helpers/moto';

/** The S3 of a test file: its bucket, moto's endpoint once started, or why the S3 cases cannot run. */
export interface ArchiveS3 {
  readonly bucket: string;
  /** Moto's endpoint, once it runs. */
  readonly endpoint?: string;
  /** Why the S3 cases cannot run here (the package index unreachable and moto not installed), if so. */
  readonly skip?: string;
}

/** Starts moto before the file's tests, with a bucket of its own, and stops it after them. */
export function useArchiveS3(): ArchiveS3 {
  const s3: { bucket: string; endpoint?: string; skip?: string } = { bucket: `audit-${randomUUID().slice(0, 8)}` };
  let moto: Awaited<ReturnType<typeof startMoto>> | undefined;
  beforeAll(async () => {
    const provision = await provideMoto();
    if ('skip' in provision) {
      s3.skip = `S3 archive not tested: ${provision.skip}`;
      console.warn(s3.skip);
      return;
    }
    moto = await startMoto(provision.env);
    s3.endpoint = moto.endpoint;
    process.env.AWS_ENDPOINT_URL_S3 = moto.endpoint;
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    process.env.AWS_REGION = 'us-east-1';
    const client = new S3Client({ endpoint: moto.endpoint, forcePathStyle: true, region: 'us-east-1' });
    await client.send(new CreateBucketCommand({ Bucket: s3.bucket, ObjectLockEnabledForBucket: true }));
    client.destroy();
  }, 600_000);
  afterAll(async () => {
    await moto?.stop();
  });
  return s3;
}
