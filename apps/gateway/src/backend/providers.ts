/**
 * The card providers the backend has an adapter for: the gateway takes each one's notifications
 * (one notification route per provider, the last path segment naming the adapter) and the console offers
 * each as a card rail. Kept beside the backend's clients because both follow the backend's list.
 */
export const PROVIDERS = ['yookassa'] as const;
