import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { TableIndexes, TableKeys, TTL_ATTRIBUTE } from '../../lib/payouts/store/table-design.js';

export interface DataProps {
  readonly stage: string;
  readonly deletionProtection: boolean;
}

/**
 * The state that outlives any deployment: the single table (keys and indexes from
 * `lib/payouts/store/table-design.ts`, so code and infrastructure cannot drift) and the provider secret.
 */
export class Data extends Construct {
  readonly table: Table;
  readonly providerSecret: Secret;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TableKeys.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TableKeys.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      // Only items written with `expiresAt` expire; payouts and their audit events never carry it.
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // The domain-events publisher needs the status before and after each change.
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
      deletionProtection: props.deletionProtection,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of Object.values(TableIndexes)) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }

    // The value is never in the template: CloudFormation creates the secret with a random placeholder,
    // and an operator puts `{ "token", "pin" }` into it (README). Functions receive only the ARN.
    this.providerSecret = new Secret(this, 'ProviderCredentials', {
      description: `Payments provider API token and transaction PIN (${props.stage}), JSON { "token", "pin" }`,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.providerSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The token and PIN are issued by the payments provider from its dashboard; no API exists to rotate them, so a rotation Lambda cannot. Operators replace the value by hand (README) and functions re-read it on a 401.',
    });
  }
}
