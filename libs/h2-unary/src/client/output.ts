import { fromBinary, type DescMessage, type DescMethodUnary, type MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';

/**
 * The unary answer's message parsed from its bytes, or the ConnectError connect-node's transports
 * throw for bytes that do not parse (Internal, `parse binary: <reason>`), so both fast clients
 * fail as the transports they stand in for.
 */
export function parseOutput<O extends DescMessage>(method: DescMethodUnary<DescMessage, O>, bytes: Uint8Array): MessageShape<O> {
  try {
    return fromBinary(method.output, bytes);
  } catch (err: unknown) {
    throw new ConnectError(`parse binary: ${err instanceof Error ? err.message : String(err)}`, Code.Internal);
  }
}
