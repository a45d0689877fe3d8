import Document, { Head, Html, Main, NextScript, type DocumentContext, type DocumentInitialProps } from 'next/document';
import { NONCE_HEADER } from '@/lib/request-path';
import { themeScript } from '@/lib/theme-script';

type Props = DocumentInitialProps & { nonce?: string };

/**
 * The account pages' document (ADR 062): the same <html> and <body> as the app's root layout, the app's icon, and the
 * theme script with this request's CSP nonce (proxy.ts), the only script these pages run.
 */
export default class AccountPagesDocument extends Document<Props> {
  static async getInitialProps(ctx: DocumentContext): Promise<Props> {
    const initial = await Document.getInitialProps(ctx);
    const nonce = ctx.req?.headers[NONCE_HEADER];
    return { ...initial, nonce: typeof nonce === 'string' ? nonce : undefined };
  }

  render() {
    const { nonce } = this.props;
    return (
      <Html lang="en" suppressHydrationWarning>
        <Head nonce={nonce}>
          {/* The app's icon (app/icon.svg, served by the App Router at this path), so no browser asks for /favicon.ico. */}
          <link rel="icon" href="/icon.svg" type="image/svg+xml" sizes="any" />
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
        </Head>
        <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
          <Main />
          <NextScript nonce={nonce} />
        </body>
      </Html>
    );
  }
}
