import type { AppProps } from 'next/app';
import '@/app/globals.css';

/** The account pages (ADR 062) share the app's stylesheet; nothing else wraps them. */
export default function AccountPagesApp({ Component, pageProps }: AppProps) {
  return <Component {...pageProps} />;
}
