/**
 * `sources/mysql/countDumpRows` on hand-written dumps (no server): what the client would execute is read
 * (strings with quotes, escapes, parentheses and semicolons; comments; executable comments; `DELIMITER`
 * blocks; column lists; `USE` of an all-databases dump), whatever the chunk boundaries, bytes passed on
 * unchanged; nothing is recorded before the end.
 */
import { expect } from 'chai'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { countDumpRows } from '../../src/sources/mysql/countDumpRows.js'

const dump = `/*M!999999\\- enable the sandbox mode */
-- MariaDB dump; a comment with INSERT INTO \`x\` VALUES (1);
/*!40101 SET NAMES utf8mb4 */;
DROP TABLE IF EXISTS \`items\`;
CREATE TABLE \`items\` (
  \`id\` int(11) NOT NULL, \`note\` text, PRIMARY KEY (\`id\`)
) ENGINE=InnoDB;
/*!40000 ALTER TABLE \`items\` DISABLE KEYS */;
INSERT INTO \`items\` VALUES (1,'a (b), c; d'),(2,'it\\'s \\\\'),(3,'x''y)'),(4,NULL),
(5,"double \\" ( quoted");
INSERT INTO \`items\` (\`id\`, \`note\`) VALUES (6,'/* not a comment */'),(7,'-- nor this');
/*!40000 ALTER TABLE \`items\` ENABLE KEYS */;
CREATE TABLE \`empty\` (\`id\` int);
/*!50001 CREATE VIEW \`v\` AS SELECT 1 AS \`id\` */;
DELIMITER ;;
/*!50003 CREATE TRIGGER t BEFORE INSERT ON \`items\` FOR EACH ROW BEGIN INSERT INTO \`empty\` VALUES (1); END */;;
DELIMITER ;
CREATE TABLE \`odd \`\`name\`\`\` (\`id\` int);
INSERT IGNORE INTO \`odd \`\`name\`\`\` VALUES (1);
USE \`other\`;
CREATE TABLE \`t\` (\`id\` int);
INSERT INTO \`t\` VALUES (1),(2);
`

async function count(chunkSize: number, database: string | undefined = 'shop') {
  const bytes = Buffer.from(dump, 'utf8')
  const chunks: Buffer[] = []
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize))
  const counter = countDumpRows(database)
  expect(counter.tables()).to.equal(undefined)
  const out = await buffer(Readable.from(chunks).pipe(counter.stream))
  expect(out.equals(bytes)).to.equal(true)
  return counter.tables()
}

describe('sources/mysql/countDumpRows: the rows a dump holds', () => {
  const expected = { 'shop.items': 7, 'shop.empty': 0, 'shop.odd `name`': 1, 'other.t': 2 }

  it('counts every table and row of a dump read in one chunk', async () => {
    expect(await count(1 << 20)).to.deep.equal(expected)
  })

  it('gives the same counts whatever the chunk boundaries', async () => {
    for (const size of [1, 2, 3, 5, 7, 16, 17, 64]) expect(await count(size), `chunks of ${size}`).to.deep.equal(expected)
  })
})
