/** Part 2 of the saved regression cases (see regressionSuite.ts). */
import { REGRESSION_PARTS, regressionSuite } from './regressionSuite';

regressionSuite(1, REGRESSION_PARTS);
