import 'server-only';
import crypto from 'node:crypto';
import bcrypt from 'bcryptjs';

const COST = Number(process.env.BCRYPT_COST || 10);

/**
 * bcrypt reads only the first 72 bytes of its input, so two long passwords sharing a prefix would match.
 * Passwords go through SHA-256 first (44 base64 characters), which keeps every character significant.
 */
const prehash = (password: string) => crypto.createHash('sha256').update(password, 'utf8').digest('base64');

export const hashPassword = (password: string) => bcrypt.hash(prehash(password), COST);
export const verifyPassword = (password: string, hash: string) => bcrypt.compare(prehash(password), hash);
