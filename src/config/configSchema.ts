// The schema of a whole config file: its shape (schema.ts) with the rules across its fields (rules.ts), which read
// the shape's types. Composed here so that neither of the two imports the other's module back.

import { crossFieldRules } from './rules.js';
import { fileShapeOf, type AdapterCatalog, type ConfigSchema, type ConfiguredAdapter } from './schema.js';

/** The schema of a config file with these adapter types: built once by the app layer (src/app/config.ts). */
export function configSchema<Options extends ConfiguredAdapter>(catalog: AdapterCatalog<Options>): ConfigSchema<Options> {
  // `when` keeps the cross-field rules running even when other keys are broken, so one run reports everything;
  // the rules themselves only read values that parsed cleanly.
  return fileShapeOf(catalog.schema).superRefine(crossFieldRules(catalog), { when: () => true });
}
