/**
 * Payloads in history: gzip and AES-GCM codecs, the data converter, claim check and external
 * storage, key files and the codec server — `import { batonDataConverter } from 'baton-agents/payloads'`.
 * @packageDocumentation
 * @module baton-agents/payloads
 */
export { batonDataConverter, batonPayloadCodecs, GzipPayloadCodec } from './codec';
export {
  AesGcmPayloadCodec,
  CodecConfigError,
  newEncryptionKey,
  PayloadDecryptionError,
  type EncryptionKey,
} from './encryption';
export { CODEC_ENV, codecOptionsFromEnv, parseEncryptionKeys, readKeyFile, type PayloadCodecOptions } from './keys';
export { decodeHistory } from './history';
export { HISTORY_RECEIVE_LIMIT } from './historyPages';
export {
  codecServerHandler,
  startCodecServer,
  type CodecServerOptions,
  type StartCodecServerOptions,
} from './codecServer';
export {
  CLAIM_CHECK_ENCODING,
  ClaimCheckError,
  ClaimCheckPayloadCodec,
  FileBlobStore,
  type BlobStore,
  type ClaimCheckOptions,
} from './claimCheck';
export {
  batonExternalStorage,
  BLOB_STORE_DRIVER_NAME,
  blobStoreDriver,
  ExternalStorageReadCodec,
} from './externalStorage';
