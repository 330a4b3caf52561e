/** The part of Telegram's WebApp object the page reads, when a host script provides it (the page loads none). */
interface TelegramWebApp {
  initData?: string;
}

interface Window {
  Telegram?: { WebApp?: TelegramWebApp };
}
