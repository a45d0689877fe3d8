'use client';

import dynamic from 'next/dynamic';
import { Spinner } from '@/components/ui/misc';

/** The highlighter is loaded when a code preview opens, so no page's first load carries Prism. */
export const CodeViewLazy = dynamic(() => import('./code-view'), { ssr: false, loading: () => <Spinner label="Highlighting…" /> });
