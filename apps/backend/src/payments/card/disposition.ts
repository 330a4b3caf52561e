/** What the backend did with a notification or a re-check: acted (or nothing left to do), or ignored. */
export interface Disposition {
  disposition: 'handled' | 'ignored';
  detail: string;
}

export const ignored = (detail: string): Disposition => ({ disposition: 'ignored', detail });
export const handled = (detail: string): Disposition => ({ disposition: 'handled', detail });
