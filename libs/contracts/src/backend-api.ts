/** The backend's Connect services (package backend.v1); one line per proto file under proto/backend/v1. */
export * from './gen/proto/backend/v1/system_pb.js';
export * from './gen/proto/backend/v1/bot_intake_pb.js';
export * from './gen/proto/backend/v1/account_pb.js';
export * from './gen/proto/backend/v1/wallet_pb.js';
export * from './gen/proto/backend/v1/catalog_pb.js';
export * from './gen/proto/backend/v1/payments_pb.js';
export * from './gen/proto/backend/v1/console_pb.js';
export * from './gen/proto/backend/v1/game_pb.js';
export * from './gen/proto/backend/v1/social_pb.js';
export * from './gen/proto/backend/v1/reconciliation_pb.js';
export * from './gen/proto/backend/v1/privacy_pb.js';
export * from './gen/proto/backend/v1/helpdesk_pb.js';
export * from './gen/proto/backend/v1/makegood_pb.js';
export * from './gen/proto/backend/v1/revenue_pb.js';
export * from './gen/proto/backend/v1/promos_pb.js';
export * from './gen/proto/backend/v1/subscriptions_pb.js';
