/** Part 3 of the saved regression cases (see regressionSuite.ts). */
import { REGRESSION_PARTS, regressionSuite } from './regressionSuite';

regressionSuite(2, REGRESSION_PARTS);
