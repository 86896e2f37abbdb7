// Locates the repo's proto/ directory from the compiled code (dist/src/rpc/ → ../../../proto/)
// and loads .proto files from it with the loader options every Weft gRPC peer shares.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** Absolute path of the repo's proto/ directory (the import root for all .proto files). */
export const PROTO_ROOT: string = fileURLToPath(new URL('../../../proto/', import.meta.url));

/** proto-loader options shared by servers and clients: camelCase fields, enums as names,
 * 64-bit integers as decimal strings (lossless), defaults filled in. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

/** Absolute path of a .proto file, given relative to proto/, e.g. 'weft/v1/health.proto'. */
export function protoPath(name: string): string {
  return join(PROTO_ROOT, name);
}

/** Loads a .proto file (relative to proto/) into a grpc-js package object. */
export function loadProto(name: string): grpc.GrpcObject {
  const definition = protoLoader.loadSync(protoPath(name), PROTO_LOADER_OPTIONS);
  return grpc.loadPackageDefinition(definition);
}
