/** Part 1 of the saved regression cases (see regressionSuite.ts). */
import { REGRESSION_PARTS, regressionSuite } from './regressionSuite';

regressionSuite(0, REGRESSION_PARTS);
