import { crash, crashNegativeControl } from './crash.ts';
import { crashPayout, crashRefund } from './crash-outflows.ts';
import { dbOutage } from './db-outage.ts';
import { dbOutageNegativeControl } from './db-outage-negative-control.ts';
import type { Scenario } from './figures.ts';
import { haFailover } from './ha-failover.ts';
import { haFailoverNegativeControl } from './ha-failover-negative-control.ts';
import { providerCard } from './provider-card.ts';
import { providerMpesa, providerMtn } from './provider-connectors.ts';
import { providerFaults } from './provider-faults.ts';
import { providerFaultsOutflows } from './provider-faults-outflows.ts';
import { security } from './security.ts';
import { shutdown } from './shutdown.ts';
import { slowClients } from './slow-clients.ts';

/** The scenarios, in the order they run. Each lives in its own file under test/faults/. */
export const SCENARIOS: Scenario[] = [
  providerFaults,
  providerFaultsOutflows,
  providerMtn,
  providerMpesa,
  providerCard,
  shutdown,
  slowClients,
  security,
  crash,
  crashNegativeControl,
  crashPayout,
  crashRefund,
  dbOutage,
  dbOutageNegativeControl,
  haFailover,
  haFailoverNegativeControl,
];
