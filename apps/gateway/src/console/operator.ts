/** Console roles; each gates its own pages and actions. */
export type ConsoleRole = 'viewer' | 'refunder' | 'catalog_editor' | 'moderator' | 'granter';

/** The signed-in operator of a console request. */
export interface ConsoleOperator {
  id: bigint;
  login: string;
  roles: string[];
  /** The session token (sent to the backend, which trusts only it). */
  token: string;
  /** This session's CSRF token. */
  csrf: string;
}
