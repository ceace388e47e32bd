// The product's name and version, read from package.json so there is one source of truth.
import packageJson from '../package.json' with { type: 'json' };

export const PRODUCT_NAME = 'gsa-bridge';
export const VERSION: string = packageJson.version;
