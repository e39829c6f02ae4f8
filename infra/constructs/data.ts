import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { TableIndexes, TableKeys, TTL_ATTRIBUTE } from '../../lib/table/index.js';

export interface DataProps {
  readonly stage: string;
  readonly deletionProtection: boolean;
}

/**
 * The state that outlives any deployment: the single table (keys and indexes from
 * `lib/table/table-design.ts`, so code and infrastructure cannot drift) and the provider's two
 * secrets, each under its own customer-managed KMS key: the API token, which only the functions that call the
 * provider may read (the token alone moves money: settlements, refunds, bulk corrections), and the wallet PIN,
 * which only the functions that send money may read. The stack adds the policies naming those functions.
 */
export class Data extends Construct {
  readonly table: Table;
  /** JSON `{ "token": "..." }`, encrypted with `providerTokenKey`. */
  readonly providerTokenSecret: Secret;
  readonly providerTokenKey: Key;
  /** JSON `{ "pin": "..." }`, encrypted with `providerPinKey`. */
  readonly providerPinSecret: Secret;
  readonly providerPinKey: Key;

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

    // Values are never in the template: CloudFormation creates each secret with a random placeholder and an
    // operator puts the real value in (docs/deploy.md). Functions receive only the ARNs.
    // The construct id is the one the combined `{ token, pin }` secret had, so an existing stack keeps its
    // secret as the token's; the runtime refuses it until the PIN is moved out of it.
    // Each secret has a key of its own: its use is logged in CloudTrail apart from everything else, and the key
    // policy says who may decrypt it independently of who may read secrets in general.
    this.providerTokenKey = new Key(this, 'ProviderTokenKey', {
      description: `Encrypts the payments provider API token (${props.stage})`,
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.providerTokenSecret = new Secret(this, 'ProviderCredentials', {
      description: `Payments provider API token (${props.stage}), JSON { "token" }; readable by the functions that call the provider only`,
      encryptionKey: this.providerTokenKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.providerPinKey = new Key(this, 'ProviderPinKey', {
      description: `Encrypts the payments provider wallet PIN (${props.stage})`,
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.providerPinSecret = new Secret(this, 'ProviderPin', {
      description: `Payments provider wallet PIN (${props.stage}), JSON { "pin" }; readable by the functions that send money only`,
      encryptionKey: this.providerPinKey,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const secret of [this.providerTokenSecret, this.providerPinSecret]) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The token and PIN are issued by the payments provider from its dashboard; no API exists to rotate them, so a rotation Lambda cannot. Operators replace the value by hand (docs/deploy.md) and functions re-read it on a 401.',
      });
    }
  }
}
