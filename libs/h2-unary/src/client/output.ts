import type { DescMessage, DescMethodUnary, MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { decodeMessage } from '../codec.js';

/**
 * The unary answer's message parsed from its bytes, or the ConnectError connect-node's transports
 * throw for bytes that do not parse (Internal, `parse binary: <reason>`), so both fast clients
 * fail as the transports they stand in for.
 */
export function parseOutput<O extends DescMessage>(method: DescMethodUnary<DescMessage, O>, bytes: Uint8Array): MessageShape<O> {
  try {
    return decodeMessage(method.output, bytes);
  } catch (err: unknown) {
    throw new ConnectError(`parse binary: ${err instanceof Error ? err.message : String(err)}`, Code.Internal);
  }
}
