// npm run db:migrate — apply pending migrations to DATA_DIR/ensemble.db (the server also does this on start).
import { closeDb, getDb } from '@/server/db';
import { appDbPath } from '@/server/db/paths';

getDb();
closeDb();
console.log(`Migrations applied: ${appDbPath()}`);
