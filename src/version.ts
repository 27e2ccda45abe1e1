// The package's version (package.json), for `webddp --version` and the reports that name the build.
import { version } from '../package.json';

export const VERSION: string = version;
