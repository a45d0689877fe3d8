import 'server-only';
import bcrypt from 'bcryptjs';

const COST = Number(process.env.BCRYPT_COST || 10);

export const hashPassword = (password: string) => bcrypt.hash(password, COST);
export const verifyPassword = (password: string, hash: string) => bcrypt.compare(password, hash);
